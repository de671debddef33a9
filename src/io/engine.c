/* engine.c - the table of engines, lookup by name, and the "auto" choice. */
#include "io/engine.h"
#include "core/rc.h"

#include <string.h>

static const struct engine_ops *const engines[] = {
	&engine_uring, &engine_libaio, &engine_psync, &engine_null, &engine_sim, &engine_nbd, &engine_iscsi, &engine_nfs, NULL,
};

int engine_probe_always(char *why, size_t why_len)
{
	(void)why;
	(void)why_len;
	return 0;
}

const struct engine_ops *const *engine_all(void)
{
	return engines;
}

const struct engine_ops *engine_find(const char *name)
{
	for (unsigned i = 0; engines[i]; i++)
		if (!strcmp(engines[i]->name, name))
			return engines[i];
	return NULL;
}

const struct engine_ops *engine_auto(void)
{
	char why[WHY_LEN];

	/* the real ones, in order of preference; null and sim do no I/O */
	for (unsigned i = 0; engines[i] && engines[i] != &engine_null; i++)
		if (engines[i]->probe(why, sizeof(why)) == 0)
			return engines[i];
	return &engine_psync;
}
