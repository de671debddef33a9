/* protect.c - files a run must not do I/O to (see protect.h). */
#include "io/protect.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static struct {
	dev_t dev;
	ino_t ino;
	int exists;
	char name[PATH_MAX];
	char what[64];
} list[PROTECT_MAX];
static unsigned count;

/* path's absolute name: its directory resolved (links and all), then its
 * last component. "" when the directory does not resolve. */
void path_absolute(const char *path, char *out, size_t len)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (!realpath(dir, real)) {
		out[0] = 0;
		return;
	}
	if ((size_t)snprintf(out, len, "%s/%s", strcmp(real, "/") ? real : "", base) >= len)
		out[0] = 0; /* longer than a path can be: no canonical name */
}

int protect_add(const char *path, const char *what)
{
	struct stat st;

	if (count == PROTECT_MAX)
		return -1;
	list[count].exists = stat(path, &st) == 0;
	if (list[count].exists) {
		list[count].dev = st.st_dev;
		list[count].ino = st.st_ino;
	}
	path_absolute(path, list[count].name, sizeof(list[count].name));
	snprintf(list[count].what, sizeof(list[count].what), "%s", what);
	count++;
	return 0;
}

const char *protect_find(const char *path)
{
	char name[PATH_MAX];
	struct stat st;
	int exists = stat(path, &st) == 0;

	path_absolute(path, name, sizeof(name));
	for (unsigned i = 0; i < count; i++) {
		if (exists && list[i].exists && st.st_dev == list[i].dev && st.st_ino == list[i].ino)
			return list[i].what;
		if (name[0] && !strcmp(name, list[i].name))
			return list[i].what;
	}
	return NULL;
}
