/* shown.h - text as a one-line message may show it.
 *
 * Paths and names that iomoon echoes in messages may hold control bytes (a
 * newline, an escape sequence) or bytes that are not UTF-8; shown writes
 * them as the Lua side's one escaper does (util.shown in
 * lua/iomoon/util.lua, which iomoon.errors and report.visible use), byte
 * for byte: \n, \r, \t, \xHH for the other control bytes (DEL too) and
 * for each byte that is not part of valid UTF-8, \u0080 to \u009f for the
 * C1 controls. So an echoed name can neither break a message's one line
 * nor forge another, and the message is valid UTF-8. A URL's password is
 * left out (redact.h), as everywhere.
 */
#ifndef IOMOON_SHOWN_H
#define IOMOON_SHOWN_H

#include <stddef.h>
#include <stdio.h>

#include "core/redact.h"

/* The length of the valid UTF-8 sequence at s (1 to 4 bytes), or 0 where
 * the bytes are not one: an overlong form, a surrogate, a code point past
 * U+10FFFF or a sequence cut short (Lua's utf8.len, strict). */
static inline size_t shown_utf8_len(const unsigned char *s)
{
	static const unsigned least[] = { 0, 0, 0x80, 0x800, 0x10000 };
	const unsigned n = s[0] < 0x80 ? 1 : s[0] < 0xc0 ? 0 : s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : s[0] < 0xf8 ? 4 : 0;
	unsigned cp;

	if (n <= 1)
		return n;
	cp = s[0] & (0x7fu >> n);
	for (unsigned i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0; /* a NUL ends the check too */
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	return cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? 0 : n;
}

/* s as every form that shows it reads it: each byte that is not UTF-8
 * made 0xff (shown alike: U+FFFD, \\xff's place), so two texts that read the
 * same compare equal. In place. */
static inline void shown_canon(char *s)
{
	while (*s) {
		const size_t k = shown_utf8_len((const unsigned char *)s);

		if (!k)
			*s = (char)0xff;
		s += k ? k : 1;
	}
}

static inline const char *shown(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	while (*s && n + 7 < len) {
		const unsigned char *u = (const unsigned char *)s;
		const size_t k = shown_utf8_len(u);

		if (k == 1 && u[0] >= 0x20 && u[0] != 0x7f)
			buf[n++] = *s;
		else if (u[0] == '\n' || u[0] == '\r' || u[0] == '\t')
			n += (size_t)snprintf(buf + n, len - n, "\\%c", u[0] == '\n' ? 'n' : u[0] == '\r' ? 'r' : 't');
		else if (k == 2 && u[0] == 0xc2 && u[1] < 0xa0) /* a C1 control */
			n += (size_t)snprintf(buf + n, len - n, "\\u%04x", u[1]);
		else if (k > 1) /* a character: room for it, as for an escape */
			for (size_t i = 0; i < k; i++)
				buf[n++] = s[i];
		else
			n += (size_t)snprintf(buf + n, len - n, "\\x%02x", u[0]);
		s += k ? k : 1;
	}
	buf[n] = 0;
	redact_in_place(buf, *s != 0);
	return buf;
}

#endif
