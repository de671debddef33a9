/* lua_csv.c - iomoon.csv: CSV text (csv.format), files replaced
 * atomically through outfile.c (csv.writer), and files read (csv.read), on
 * csv.c and libcsv. Every row is formatted by libcsv straight into a Lua
 * buffer; a writer hands each row's text to outfile_write at once.
 *
 * Names: a Lua C function is l_ and its Lua name (csv.writer is
 * l_csv_writer, a writer's w:row l_csv_writer_row); helpers are plain.
 */
#include <lauxlib.h>
#include <stdint.h>
#include <string.h>

#include "core/csv.h"
#include "core/outfile.h"
#include "core/rc.h"
#include "lua/lua_api.h"
#include "lua/lua_int.h"

#define WRITER_MT "iomoon.csv.writer"

/* A csv.writer: the temporary file that replaces its path on close. */
struct writer {
	struct outfile out;
	int open;       /* out holds a temporary file */
	int failed;     /* a row could not be written: close raises why */
	char why[WHY_LEN];
};

/* Push row r's field i (from 1) as a string: nil as empty, anything else
 * as luaL_tolstring shows it (numbers as Lua prints them). */
static const char *push_field(lua_State *L, int row, lua_Integer i, size_t *len)
{
	if (lua_rawgeti(L, row, i) == LUA_TNIL) {
		lua_pop(L, 1);
		lua_pushliteral(L, "");
	} else {
		luaL_tolstring(L, -1, NULL);
		lua_replace(L, -2);
	}
	return lua_tolstring(L, -1, len);
}

/* Replace the row (a list) at the top of the stack by its CSV text, CRLF
 * at the end; libcsv writes it into a Lua buffer sized for the row. */
static void push_row_text(lua_State *L)
{
	int row = lua_gettop(L);
	lua_Integer n = (lua_Integer)lua_rawlen(L, row);
	size_t room = strlen(CSV_ROW_END), used = 0, len;
	luaL_Buffer b;
	char *p;

	if (n > INT16_MAX)
		api_input_error(L, "csv row: %lld fields (at most %d)", (long long)n, INT16_MAX);
	luaL_checkstack(L, (int)n + 4, "csv row");
	for (lua_Integer i = 1; i <= n; i++) {
		push_field(L, row, i, &len);
		if (len > (SIZE_MAX - room) / 2 - 2)
			luaL_error(L, "csv row: field %lld is too long", (long long)i);
		room += CSV_FIELD_ROOM(len);
	}
	p = luaL_buffinitsize(L, &b, room);
	for (lua_Integer i = 1; i <= n; i++) {
		const char *s = lua_tolstring(L, row + (int)i, &len);

		used += csv_put_field(p + used, (size_t)(i - 1), s, len);
	}
	memcpy(p + used, CSV_ROW_END, strlen(CSV_ROW_END));
	luaL_pushresultsize(&b, used + strlen(CSV_ROW_END));
	lua_replace(L, row);
	lua_settop(L, row);
}

/* csv.format(rows) -> the CSV text of a list of rows (as csv.writer
 * writes them); the rows end at the first entry that is not a table. */
static int l_csv_format(lua_State *L)
{
	luaL_Buffer b;

	luaL_checktype(L, 1, LUA_TTABLE);
	lua_settop(L, 1);
	luaL_buffinit(L, &b);
	for (lua_Integer r = 1; lua_rawgeti(L, 1, r) == LUA_TTABLE; r++) {
		push_row_text(L);
		luaL_addvalue(&b);
	}
	lua_pop(L, 1);
	luaL_pushresult(&b);
	return 1;
}

/* csv.writer(path) -> a writer: rows go to a temporary file beside path,
 * which w:close() renames over it (outfile.c: fsync, rename, fsync). */
static int l_csv_writer(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	struct writer *w = lua_newuserdatauv(L, sizeof(*w), 0);
	char why[WHY_LEN];

	w->open = 0;
	w->failed = 0;
	luaL_setmetatable(L, WRITER_MT);
	if (outfile_begin(&w->out, path, why, sizeof(why)) != RC_OK)
		return api_input_error(L, "csv.writer: %s", why);
	w->open = 1;
	return 1;
}

/* w:row{...}: one row, written at once. A failed write removes the
 * temporary file (the previous file stays) and raises a run error with
 * the reason, which w:close() raises again. */
static int l_csv_writer_row(lua_State *L)
{
	struct writer *w = luaL_checkudata(L, 1, WRITER_MT);
	const char *text;
	size_t len;

	if (w->failed)
		return api_raise_error(L, IOMOON_RUN_ERROR, w->why);
	if (!w->open)
		return luaL_error(L, "csv writer is closed");
	luaL_checktype(L, 2, LUA_TTABLE);
	lua_settop(L, 2);
	push_row_text(L);
	text = lua_tolstring(L, 2, &len);
	if (outfile_write(&w->out, text, len, w->why, sizeof(w->why)) != RC_OK) {
		outfile_abort(&w->out);
		w->open = 0;
		w->failed = 1;
		return api_raise_error(L, IOMOON_RUN_ERROR, w->why);
	}
	return 0;
}

/* w:close(): the file renamed into place, durably; or the failure of a
 * row (once), the previous file kept. */
static int l_csv_writer_close(lua_State *L)
{
	struct writer *w = luaL_checkudata(L, 1, WRITER_MT);
	char why[WHY_LEN];

	if (w->failed) {
		w->failed = 0;
		return api_raise_error(L, IOMOON_RUN_ERROR, w->why);
	}
	if (!w->open)
		return 0;
	w->open = 0;
	if (outfile_commit(&w->out, why, sizeof(why)) != RC_OK)
		return api_raise_error(L, IOMOON_RUN_ERROR, why);
	return 0;
}

/* A writer never closed: the file was not finished, the old one stays. */
static int l_csv_writer_gc(lua_State *L)
{
	struct writer *w = luaL_checkudata(L, 1, WRITER_MT);

	if (w->open)
		outfile_abort(&w->out);
	w->open = 0;
	return 0;
}

/* csv.read's place in the list it builds */
struct read_ctx {
	lua_State *L;
	lua_Integer row, col;
};

/* One field: a new row table first if it is the row's first. */
static void read_field(void *ctx, const char *s, size_t len)
{
	struct read_ctx *c = ctx;

	if (c->col == 0)
		lua_newtable(c->L);
	lua_pushlstring(c->L, s, len);
	lua_rawseti(c->L, -2, ++c->col);
}

/* The row (an empty one for a blank line) appended to the list. */
static void read_row_end(void *ctx)
{
	struct read_ctx *c = ctx;

	if (c->col == 0)
		lua_newtable(c->L);
	lua_rawseti(c->L, -2, ++c->row);
	c->col = 0;
}

/* csv.read(path) -> list of rows, each a list of strings */
static int l_csv_read(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	struct read_ctx c = { L, 0, 0 };
	char why[WHY_LEN];

	lua_settop(L, 1);
	lua_newtable(L);
	luaL_checkstack(L, 8, NULL);
	if (csv_read_file(path, read_field, read_row_end, &c, why, sizeof(why)) < 0)
		return api_input_error(L, "csv.read: %s", why);
	if (c.col) /* a last row without a line end */
		read_row_end(&c);
	return 1;
}

/* Push the iomoon.csv table (and make the writers' metatable). */
void api_push_csv(lua_State *L)
{
	static const luaL_Reg writer_methods[] = {
		{ "row", l_csv_writer_row }, { "close", l_csv_writer_close }, { NULL, NULL },
	};
	static const luaL_Reg csv_funcs[] = {
		{ "writer", l_csv_writer }, { "read", l_csv_read }, { "format", l_csv_format }, { NULL, NULL },
	};

	api_new_metatable(L, WRITER_MT, writer_methods, l_csv_writer_gc, NULL);
	luaL_newlib(L, csv_funcs);
}
