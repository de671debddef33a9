/* redact.c - passwords out of everything iomoon shows (redact.h).
 *
 * Two rules, because a URL in a message has no marked end: a URL given to
 * iomoon (an argument, a target) is read whole, as libiscsi reads it, and
 * its password kept in a small table, then removed from any text it turns
 * up in (a password may hold '/' or a space; one under KEPT_ANYWHERE bytes
 * only where it stands as a URL's or a query's password, as a short word
 * is often the text's own); in any other text, a URL's
 * password runs from its user name's ':' or '%' to the '@', stopping at
 * whitespace, so that a message's later '@' is not taken for one.
 */
#include "core/redact.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define KEPT_MAX 16
#define KEPT_LEN 256
/* A kept password this long or longer is cut wherever it turns up; a
 * shorter one only where it stands as a password (kept_at_value): a short
 * one is often a word the text holds for itself ("Read" in "4K; 100% Read"
 * and in the reports' column names). */
#define KEPT_ANYWHERE 8

static char kept[KEPT_MAX][KEPT_LEN];
static unsigned kept_n; /* published with release after its entry is written */

static int scheme_char(char c)
{
	return isalnum((unsigned char)c) || c == '+' || c == '-' || c == '.';
}

/* The password of the URL whose "://" is at sep in text: [*from, *to),
 * from the ':' or '%' that ends its user name (libiscsi's user%password, a
 * URI's user:password) to the '@'. stops: what ends the search before an
 * '@' (a query's '?'; in free text, whitespace). open: text cut short, where
 * a password may run to its end. 1 when there is one. */
static int url_password(char *text, char *sep, const char *stops, int open, char **from, char **to)
{
	char *end = sep > text && sep[-1] == '\\' ? sep - 1 : sep, *s = end, *user = sep + 3;

	/* the scheme before its "://" (or fio's escaped one, "iscsi\://") */
	while (s > text && scheme_char(s[-1]))
		s--;
	while (s < end && !isalpha((unsigned char)*s))
		s++;
	if (s == end || *user == '[') /* no scheme; an IP literal (or a URL form's "[user[%password]@]") */
		return 0;
	*from = user + strcspn(user, "%:/?#@ \t\n");
	if (**from != '%' && **from != ':')
		return 0;
	*to = *from + strcspn(*from, stops);
	return **to == '@' || (open && !**to);
}

/* The value of a query's password parameter at key (a "password=" in
 * text): "?target_password=V" or "&password=V". 1 with [*from, *to). */
static int query_password(char *text, char *key, char **from, char **to)
{
	char *k = key;

	while (k > text && (isalnum((unsigned char)k[-1]) || k[-1] == '_' || k[-1] == '-' || k[-1] == '.'))
		k--;
	if (k == text || (k[-1] != '?' && k[-1] != '&'))
		return 0;
	*from = key + strlen("password=");
	for (*to = *from; **to && !strchr("&# \t\n", **to); ++*to)
		if (**to == ':' && (!(*to)[1] || (*to)[1] == ' ')) /* "URL: what is wrong" */
			break;
	return *to > *from;
}

static void cut(char *from, const char *to)
{
	memmove(from, to, strlen(to) + 1);
}

/* Whether the kept password of len bytes at at (in text) stands as a
 * password: a URL's, after its user name's ':' or '%' and before the '@'
 * (spaces and all, as it was kept), or a query's, after "password=". */
static int kept_at_value(const char *text, const char *at, size_t len)
{
	const size_t key = strlen("password=");

	if (at > text && (at[-1] == ':' || at[-1] == '%') && at[len] == '@')
		return 1;
	return (size_t)(at - text) >= key && !strncasecmp(at - key, "password=", key);
}

size_t redact_in_place(char *text, int open)
{
	unsigned n = __atomic_load_n(&kept_n, __ATOMIC_ACQUIRE);
	char *at, *from, *to;

	for (unsigned i = 0; i < n; i++) {
		size_t len = strlen(kept[i]);

		for (at = strstr(text, kept[i]); at; at = strstr(at, kept[i]))
			if (len >= KEPT_ANYWHERE || kept_at_value(text, at, len))
				cut(at, at + len);
			else
				at += len;
	}
	for (at = strstr(text, "://"); at; at = strstr(at + 3, "://"))
		if (url_password(text, at, "@? \t\n", open, &from, &to))
			cut(from, to);
	for (at = strcasestr(text, "password="); at; at = strcasestr(at + 1, "password="))
		if (query_password(text, at, &from, &to))
			cut(from, to);
	return strlen(text);
}

void redact_copy(const char *text, char *out, size_t len)
{
	if (!len)
		return;
	redact_in_place(out, snprintf(out, len, "%s", text) >= (int)len);
}

/* Keep [from, to) (a password) in the table, once. */
static void keep(const char *from, const char *to)
{
	size_t len = (size_t)(to - from);
	unsigned n = __atomic_load_n(&kept_n, __ATOMIC_ACQUIRE);

	if (len == 0 || len >= KEPT_LEN || n == KEPT_MAX)
		return;
	for (unsigned i = 0; i < n; i++)
		if (strlen(kept[i]) == len && !memcmp(kept[i], from, len))
			return;
	memcpy(kept[n], from, len);
	kept[n][len] = 0;
	__atomic_store_n(&kept_n, n + 1, __ATOMIC_RELEASE);
}

void redact_keep(const char *word)
{
	char w[4096], *at, *from, *to;

	if (snprintf(w, sizeof(w), "%s", word) >= (int)sizeof(w))
		return; /* no URL is this long: the URL rule alone */
	for (at = strstr(w, "://"); at; at = strstr(at + 3, "://"))
		if (url_password(w, at, "@?", 0, &from, &to))
			keep(from + 1, to);
	for (at = strcasestr(w, "password="); at; at = strcasestr(at + 1, "password="))
		if (query_password(w, at, &from, &to))
			keep(from, to);
}
