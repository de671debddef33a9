/* redact.h - passwords out of everything iomoon shows.
 *
 * A target may be a URL with a password (libiscsi's
 * iscsi://user%password@host/..., a URI's nbd://user:password@host/...,
 * a query's ?target_password=...). Every message, progress line, name,
 * result and report goes through redact_in_place (in C: shown.h, the
 * error constructors, net_redact; in Lua: iomoon.redact), which leaves out:
 *   - each password registered with redact_keep (the command line's words,
 *     every target URL as it is inspected): one of 8 bytes or more
 *     wherever it appears, a shorter one where it stands as a password
 *     (between a user name's ':' or '%' and an '@', or after "password=";
 *     spaces and all), so that a password "Read" leaves "100% Read" be;
 *   - in any URL of any scheme, in any case, the user's password: from the
 *     ':' or '%' after the user name to the '@' (none of whitespace or '?'
 *     between them: in free text that is where a URL ends);
 *   - the value of a query's "...password=" parameter.
 * A URL then reads "iscsi://user@host/...".
 */
#ifndef IOMOON_REDACT_H
#define IOMOON_REDACT_H

#include <stddef.h>

/* Redact text in place; open: text that was cut short, where a password
 * may run to its end (and is cut there). Returns the new length. */
size_t redact_in_place(char *text, int open);
/* text redacted into out, cut to len - 1 bytes first (what a cut leaves
 * of a password is left out too). */
void redact_copy(const char *text, char *out, size_t len);
/* Register the passwords of the URLs in word (one argument, or a URL:
 * read as libiscsi reads it, to the first '@' before any '?', spaces and
 * all), so that they are left out of any text from then on (under 8
 * bytes, only where they stand as passwords). Not thread-safe against
 * itself: the thread that parses targets calls it. */
void redact_keep(const char *word);

#endif
