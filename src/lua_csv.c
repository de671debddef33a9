/* lua_csv.c - iomoon.csv: CSV files written atomically (csv.writer), read
 * (csv.read), and CSV text (csv.format), on csv.c and libcsv.
 */
#include <lauxlib.h>
#include <stdlib.h>

#include "csv.h"
#include "lua_api.h"
#include "lua_int.h"

#define CSVW_MT "iomoon.csv.writer"

struct csvw_ud {
	struct csvw *w;
	lua_Integer rows;
};

static int l_csv_writer(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	struct csvw_ud *u = lua_newuserdatauv(L, sizeof(*u), 0);
	char why[512];

	u->w = NULL;
	u->rows = 0;
	luaL_setmetatable(L, CSVW_MT);
	u->w = csvw_open(path, why, sizeof(why));
	if (!u->w)
		return api_input_error(L, "csv.writer: %s", why);
	return 1;
}

/* w:row{...}: numbers are written as Lua prints them; nil as empty */
static int csvw_l_row(lua_State *L)
{
	struct csvw_ud *u = luaL_checkudata(L, 1, CSVW_MT);
	const char *fields[256];
	size_t lens[256];
	lua_Integer n;

	if (!u->w)
		return luaL_error(L, "csv writer is closed");
	luaL_checktype(L, 2, LUA_TTABLE);
	n = (lua_Integer)lua_rawlen(L, 2);
	if (n > 256)
		return api_input_error(L, "csv row: %lld fields (at most 256)", (long long)n);
	lua_settop(L, 2);
	luaL_checkstack(L, (int)n * 2 + 4, "csv row");
	for (lua_Integer i = 1; i <= n; i++) {
		lua_rawgeti(L, 2, i);
		if (lua_isnil(L, -1)) {
			fields[i - 1] = "";
			lens[i - 1] = 0;
		} else {
			fields[i - 1] = luaL_tolstring(L, -1, &lens[i - 1]); /* kept on the stack */
		}
	}
	if (csvw_row(u->w, fields, lens, (size_t)n) < 0)
		return api_raise_error(L, IOMOON_RUN_ERROR, "csv: write failed");
	u->rows++;
	return 0;
}

static int csvw_l_close(lua_State *L)
{
	struct csvw_ud *u = luaL_checkudata(L, 1, CSVW_MT);
	char why[512];

	if (u->w) {
		struct csvw *w = u->w;

		u->w = NULL;
		if (csvw_close(w, 1, why, sizeof(why)) < 0)
			return api_raise_error(L, IOMOON_RUN_ERROR, why);
	}
	return 0;
}

static int csvw_l_gc(lua_State *L)
{
	struct csvw_ud *u = luaL_checkudata(L, 1, CSVW_MT);
	char why[64];

	if (u->w) /* never closed: the file was not finished, keep the old one */
		csvw_close(u->w, 0, why, sizeof(why));
	u->w = NULL;
	return 0;
}

struct csv_read_ctx {
	lua_State *L;
	lua_Integer row, col;
};

static void csv_field_cb(void *ctx, const char *s, size_t len)
{
	struct csv_read_ctx *c = ctx;

	if (c->col == 0) {
		lua_newtable(c->L);
	}
	lua_pushlstring(c->L, s, len);
	lua_rawseti(c->L, -2, ++c->col);
}

static void csv_row_cb(void *ctx)
{
	struct csv_read_ctx *c = ctx;

	if (c->col == 0)
		lua_newtable(c->L);
	lua_rawseti(c->L, -2, ++c->row);
	c->col = 0;
}

/* csv.read(path) -> list of rows, each a list of strings */
static int l_csv_read(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	struct csv_read_ctx c = { L, 0, 0 };
	char why[512];

	lua_settop(L, 1);
	lua_newtable(L);
	luaL_checkstack(L, 8, NULL);
	if (csv_read_file(path, csv_field_cb, csv_row_cb, &c, why, sizeof(why)) < 0)
		return api_input_error(L, "csv.read: %s", why);
	if (c.col) /* a last row without a line end */
		csv_row_cb(&c);
	return 1;
}

/* csv.format(rows) -> the CSV text of a list of rows (as csv.writer writes them) */
static int l_csv_format(lua_State *L)
{
	struct csvbuf b = { 0 };
	const char *fields[256];
	size_t lens[256];

	luaL_checktype(L, 1, LUA_TTABLE);
	lua_settop(L, 1);
	for (lua_Integer r = 1; lua_rawgeti(L, 1, r) == LUA_TTABLE; r++) {
		lua_Integer n = (lua_Integer)lua_rawlen(L, 2);

		if (n > 256) {
			free(b.s);
			return api_input_error(L, "csv.format: row %lld has %lld fields (at most 256)", (long long)r,
					       (long long)n);
		}
		luaL_checkstack(L, (int)n + 4, "csv.format");
		for (lua_Integer i = 1; i <= n; i++) {
			lua_rawgeti(L, 2, i);
			fields[i - 1] = lua_isnil(L, -1) ? "" : luaL_tolstring(L, -1, &lens[i - 1]);
			if (lua_isnil(L, -1))
				lens[i - 1] = 0;
		}
		if (csv_format_row(&b, fields, lens, (size_t)n) < 0) {
			free(b.s);
			return luaL_error(L, "csv.format: out of memory");
		}
		lua_settop(L, 1);
	}
	lua_pushlstring(L, b.s ? b.s : "", b.len);
	free(b.s);
	return 1;
}

/* Push the iomoon.csv table (and make the writers' metatable). */
void api_push_csv(lua_State *L)
{
	static const luaL_Reg csvw_methods[] = {
		{ "row", csvw_l_row }, { "close", csvw_l_close }, { NULL, NULL },
	};
	static const luaL_Reg csv_funcs[] = {
		{ "writer", l_csv_writer }, { "read", l_csv_read }, { "format", l_csv_format }, { NULL, NULL },
	};

	api_new_metatable(L, CSVW_MT, csvw_methods, csvw_l_gc, NULL);
	luaL_newlib(L, csv_funcs);
}
