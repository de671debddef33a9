/* shown.h - text as a one-line message may show it.
 *
 * Paths and names that iomoon echoes in messages may hold control bytes (a
 * newline, an escape sequence); shown writes them as \n, \r, \t or \xHH,
 * the same style as the Lua side (iomoon.errors, report.visible), so an
 * echoed name can neither break a message's one line nor forge another.
 * A URL's password is left out (redact.h), as everywhere.
 */
#ifndef IOMOON_SHOWN_H
#define IOMOON_SHOWN_H

#include <stddef.h>
#include <stdio.h>

#include "core/redact.h"

static inline const char *shown(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	for (; *s && n + 5 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x20 && c != 0x7f)
			buf[n++] = (char)c;
		else if (c == '\n' || c == '\r' || c == '\t')
			n += (size_t)snprintf(buf + n, len - n, "\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
		else
			n += (size_t)snprintf(buf + n, len - n, "\\x%02x", c);
	}
	buf[n] = 0;
	redact_in_place(buf, *s != 0);
	return buf;
}

#endif
