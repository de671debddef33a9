/* trace_iolog.c - fio's iolog, versions 2 and 3 (doc/replay.md, "Reading
 * traces"), read line by line with no allocation per line.
 *
 * Version 2: "FILE add|open|close" and "FILE ACTION OFFSET LENGTH", with
 * "FILE wait N" the only source of time. fio's code (iolog.c,
 * read_iolog_get) sleeps until N milliseconds after fio started, if that
 * has not passed yet; its HOWTO says N microseconds after the previous
 * wait. The code is followed: a wait of N sets the time of the records
 * after it to max(the time so far, N ms).
 * Version 3: every line starts with its time in microseconds since the
 * start (fio's log_io_u writes utime_since_now); "wait" is ignored, as fio
 * ignores it.
 */
#include <stdio.h>
#include <string.h>

#include "core/op.h"
#include "trace/trace_int.h"

#define WS(c) ((c) == ' ' || (c) == '\t')

/* The next space-separated token of *p: its start, its length in *len,
 * *p moved past it. NULL when the line has no more. */
static const char *token(const char **p, size_t *len)
{
	const char *s = *p, *e;

	while (WS(*s))
		s++;
	if (!*s)
		return NULL;
	e = s;
	while (*e && !WS(*e))
		e++;
	*len = (size_t)(e - s);
	*p = e;
	return s;
}

/* A whole number token into *v; 0, or -1 when it is none. */
static int number(const char *s, size_t len, uint64_t *v)
{
	const char *end;

	return trace_u64(s, &end, v) || (size_t)(end - s) != len ? -1 : 0;
}

/* The action words: what each becomes (-1: a file action, -2: wait). */
static int action(const char *s, size_t len)
{
	static const struct {
		const char *w;
		int op;
	} acts[] = {
		{ "read", OP_READ }, { "write", OP_WRITE }, { "trim", OP_TRIM }, { "sync", OP_SYNC },
		{ "datasync", OP_SYNC }, { "add", -1 }, { "open", -1 }, { "close", -1 }, { "wait", -2 },
	};

	for (size_t i = 0; i < sizeof(acts) / sizeof(acts[0]); i++)
		if (strlen(acts[i].w) == len && !memcmp(acts[i].w, s, len))
			return acts[i].op;
	return -3;
}

struct iolog_line {
	const char *name, *act;
	size_t name_len, act_len;
	uint64_t a, b; /* offset and length (wait: its time) */
	int nargs;     /* how many of a, b were given */
};

/* Split a line after its timestamp: FILE ACTION [A [B]]; RC_INPUT via
 * tb_bad when it does not fit (*skip set when skip_bad counted it). */
static int split(struct tbuild *b, const char *p, struct iolog_line *l, int *skip)
{
	const char *s;
	size_t n;

	*skip = 1;
	l->name = token(&p, &l->name_len);
	l->act = l->name ? token(&p, &l->act_len) : NULL;
	if (!l->act)
		return tb_bad(b, "expected FILE ACTION [OFFSET LENGTH] (a file name and an action)");
	l->nargs = 0;
	while ((s = token(&p, &n))) {
		if (l->nargs == 2)
			return tb_bad(b, "more than FILE ACTION OFFSET LENGTH (%.*s...)", (int)(n < 40 ? n : 40), s);
		if (number(s, n, l->nargs ? &l->b : &l->a))
			return tb_bad(b, "'%.*s' is not a whole number of bytes (the %s)", (int)(n < 40 ? n : 40), s,
				      l->nargs ? "length" : "offset");
		l->nargs++;
	}
	*skip = 0;
	return 0;
}

/* One line (after the header) of version v; *now is the time of the next
 * record in ns (version 2: from the waits). */
static int iolog_line(struct tbuild *b, const char *p, int v, uint64_t *now)
{
	struct iolog_line l;
	uint64_t ts = 0;
	int op, dev, skip, rc;

	if (v == 3) {
		const char *end;

		while (WS(*p))
			p++;
		if (trace_u64(p, &end, &ts) || !WS(*end) || ts > UINT64_MAX / 1000)
			return tb_bad(b, "expected a time in microseconds first (TIME FILE ACTION [OFFSET LENGTH])");
		p = end;
	}
	rc = split(b, p, &l, &skip);
	if (rc || skip)
		return rc;
	op = action(l.act, l.act_len);
	if (op == -3)
		return tb_bad(b, "unknown action '%.*s' (expected add, open, close, read, write, trim, sync, datasync%s)",
			      (int)(l.act_len < 40 ? l.act_len : 40), l.act, v == 2 ? ", wait" : "");
	if (op == -2) {
		if (v == 3)
			return RC_OK;
		if (l.nargs < 1 || l.a > UINT64_MAX / 1000000)
			return tb_bad(b, "wait without its time (FILE wait MILLISECONDS)");
		if (l.a * 1000000 > *now)
			*now = l.a * 1000000;
		return RC_OK;
	}
	dev = tb_dev(b, l.name, l.name_len);
	if (dev < 0)
		return b->o->skip_bad ? RC_OK : RC_INPUT;
	if (op == -1)
		return RC_OK;
	if (op == OP_SYNC && l.nargs != 2)
		l.a = l.b = 0;
	else if (l.nargs != 2)
		return tb_bad(b, "%.*s without its offset and length (FILE %.*s OFFSET LENGTH)", (int)l.act_len, l.act,
			      (int)l.act_len, l.act);
	if (op == OP_SYNC)
		l.a = l.b = 0;
	if (l.b > UINT32_MAX)
		return tb_bad(b, "length %llu is over 4 GiB (at most 4294967295 bytes)", (unsigned long long)l.b);
	if (l.a + l.b < l.a)
		return tb_bad(b, "offset %llu + length overflows", (unsigned long long)l.a);
	return tb_push(b, v == 3 ? ts * 1000 : *now, (unsigned)op, l.a, l.b, dev);
}

int trace_read_iolog(struct tbuild *b, const char *path, int version)
{
	struct lines r;
	uint64_t now = 0;
	size_t len;
	char *s;
	int err, rc = lines_open(&r, path, b->why, b->why_len);

	if (rc)
		return rc;
	b->line = 1;
	s = lines_next(&r, &len, &err, path, b->why, b->why_len);
	/* a prefix, as fio checks it */
	if (!s || strncmp(s, version == 2 ? "fio version 2 iolog" : "fio version 3 iolog", 19)) {
		lines_close(&r);
		if (err)
			return err == 2 ? RC_INPUT : RC_FAIL;
		/* a wrong header is never skipped */
		snprintf(b->why, b->why_len, "%s: line 1: expected \"fio version %d iolog\" (the first line of a fio "
			 "iolog)", b->path, version);
		return RC_INPUT;
	}
	while ((s = lines_next(&r, &len, &err, path, b->why, b->why_len))) {
		b->line++;
		const char *nul = memchr(s, 0, len);

		if (!nul && !s[strspn(s, " \t")])
			continue;
		if (nul)
			rc = tb_bad(b, "a NUL byte at column %zu (a text line)", (size_t)(nul - s) + 1);
		else
			rc = iolog_line(b, s, version, &now);
		if (rc)
			break;
	}
	lines_close(&r);
	return err == 2 ? RC_INPUT : err ? RC_FAIL : rc;
}
