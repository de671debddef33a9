/* units.c - sizes and durations as users type them.
 *
 * A size is a decimal number with an optional binary suffix: b, k, m, g, t, p,
 * each optionally followed by "b" or "ib" ("4k", "4KiB", "4KB" are all 4096;
 * "0.5k" is 512). The result must be a whole number of bytes. A duration is a
 * decimal number with an optional suffix ns, us, ms, s (or sec), m (or min),
 * h, in any case; a bare number is seconds. Blanks around the number are
 * allowed ("10 s"). Parsing is strict: trailing garbage, negative numbers and
 * overflow are errors, never silently clipped.
 */
#include "core/units.h"

#include "core/rc.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Parse the leading unsigned decimal of s; *end points past it. RC_INPUT
 * when there is no digit. */
static int parse_number(const char *s, long double *v, const char **end)
{
	const char *p = s;
	long double x = 0;
	int digits = 0;

	while (isspace((unsigned char)*p))
		p++;
	while (isdigit((unsigned char)*p)) {
		x = x * 10 + (*p++ - '0');
		digits++;
	}
	if (*p == '.') {
		long double scale = 0.1L;
		p++;
		while (isdigit((unsigned char)*p)) {
			x += (*p++ - '0') * scale;
			scale /= 10;
			digits++;
		}
	}
	if (!digits)
		return RC_INPUT;
	while (isspace((unsigned char)*p))
		p++;
	*v = x;
	*end = p;
	return RC_OK;
}

#define UNITS_MAX_LEN 63

/* s without surrounding blanks, in buf of UNITS_MAX_LEN + 1 bytes; NULL
 * when that is longer (no size or duration is that long: never cut one). */
static const char *trimmed(const char *s, char *buf)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n > UNITS_MAX_LEN)
		return NULL;
	memcpy(buf, s, n);
	buf[n] = 0;
	return buf;
}

static int too_long(const char *what, char *why, size_t why_len)
{
	snprintf(why, why_len, "too long for a %s (at most %d characters, e.g. \"4k\" or \"10s\")", what, UNITS_MAX_LEN);
	return RC_INPUT;
}

int units_parse_size(const char *arg, uint64_t *bytes, char *why, size_t why_len)
{
	static const char suffixes[] = "bkmgtp";
	long double v, mult = 1;
	char buf[UNITS_MAX_LEN + 1];
	const char *p, *s = trimmed(arg, buf);

	if (!s)
		return too_long("size", why, why_len);
	if (parse_number(s, &v, &p)) {
		snprintf(why, why_len, "'%s' is not a size (a whole number of bytes, or a number with a suffix k, m, g, t such as 4k or 1.5m)", s);
		return RC_INPUT;
	}
	if (*p) {
		const char *hit = strchr(suffixes, tolower((unsigned char)*p));
		const char *rest;

		if (!hit) {
			snprintf(why, why_len, "'%s' has an unknown unit '%s' (use b, k, m, g, t or p, binary: 1k = 1024 bytes)", s, p);
			return RC_INPUT;
		}
		for (long i = 0; i < hit - suffixes; i++)
			mult *= 1024;
		rest = p + 1;
		if (*hit != 'b' && (!strcasecmp(rest, "b") || !strcasecmp(rest, "ib")))
			rest += strlen(rest);
		if (*rest) {
			snprintf(why, why_len, "'%s' has an unknown unit '%s' (use b, k, m, g, t or p, binary: 1k = 1024 bytes)", s, p);
			return RC_INPUT;
		}
	}
	v *= mult;
	if (v >= 18446744073709551615.0L) {
		snprintf(why, why_len, "'%s' is too large (at most 16 EiB)", s);
		return RC_INPUT;
	}
	if (v != floorl(v)) {
		snprintf(why, why_len, "'%s' is not a whole number of bytes", s);
		return RC_INPUT;
	}
	*bytes = (uint64_t)v;
	return RC_OK;
}

int units_parse_duration(const char *arg, uint64_t *ns, char *why, size_t why_len)
{
	static const struct { const char *name; long double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3L }, { "ms", 1e6L }, { "s", 1e9L },
		{ "sec", 1e9L }, { "m", 60e9L }, { "min", 60e9L }, { "h", 3600e9L },
	};
	long double v, mult = 1e9L;
	char buf[UNITS_MAX_LEN + 1];
	const char *p, *s = trimmed(arg, buf);

	if (!s)
		return too_long("duration", why, why_len);
	if (parse_number(s, &v, &p)) {
		snprintf(why, why_len, "'%s' is not a duration (a number of seconds, or a number with a unit ns, us, ms, s, m, h such as 500ms or 2m)", s);
		return RC_INPUT;
	}
	if (*p) {
		size_t i;

		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcasecmp(p, units[i].name))
				break;
		if (i == sizeof(units) / sizeof(units[0])) {
			snprintf(why, why_len, "'%s' has an unknown unit '%s' (use ns, us, ms, s or sec, m or min, h)", s, p);
			return RC_INPUT;
		}
		mult = units[i].ns;
	}
	v = roundl(v * mult);
	if (v >= 9.2e18L) {
		snprintf(why, why_len, "'%s' is too long (at most about 292 years)", s);
		return RC_INPUT;
	}
	*ns = (uint64_t)v;
	return RC_OK;
}

void units_format_size(uint64_t bytes, char *out, size_t out_len)
{
	static const char *names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	int i = 0;

	while (v >= 1024 && i < 6) {
		v /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(out, out_len, "%llu B", (unsigned long long)bytes);
	else if (v == floor(v))
		snprintf(out, out_len, "%.0f %s", v, names[i]);
	else
		snprintf(out, out_len, "%.2f %s", v, names[i]);
}
