/* lua_result_fields.h - what a result table holds, described once.
 *
 * Every table of a result (the result, its lat, read, replay, hosts[i] ...)
 * has one description here: its fields, each with its Lua type, whether a
 * result may lack it, and the description of the table it holds. The
 * binding seals each described table with it when the result is made
 * (lua_result.c: a field neither there nor optional is an input error
 * naming it); the Lua library reads the same descriptions as
 * iomoon.result_fields (saved.lua checks a results file read back with
 * them, html.lua takes from them the fields that say what ran).
 */
#ifndef IOMOON_LUA_RESULT_FIELDS_H
#define IOMOON_LUA_RESULT_FIELDS_H

#include <lua.h>

enum result_field_flags {
	RF_OPTIONAL = 1 << 0, /* a result may lack it: read when absent, it is nil */
	RF_SAVED = 1 << 1,    /* every report reads it: a results file read back must hold it */
	RF_COUNT = 1 << 2,    /* a whole number of 0 or more */
	RF_MEASURE = 1 << 3,  /* a figure no run has below 0 (a rate, a time, a size) */
	RF_DEFINES = 1 << 4,  /* says what ran (a result's definition, when it has none) */
	RF_LIST = 1 << 5,     /* a list, each entry a table of the description `table` (if any) */
	RF_MAP = 1 << 6,      /* a map by name, each value a table of the description `table` */
};

struct result_field {
	const char *name;
	const char *type;  /* Lua's name of its type; "any" where it is one of several */
	unsigned flags;    /* enum result_field_flags */
	const char *table; /* the description of the table it holds (sealed with it), or NULL */
};

struct result_table {
	const char *name; /* "result", "op", "lat", "host", ... */
	const struct result_field *fields; /* ends with a NULL name */
};

/* The description called name, or NULL. */
const struct result_table *result_table_named(const char *name);

/* iomoon.result_fields: every description, { [name] = { {name =, type =,
 * optional =, saved =, count =, measure =, defines =, table =, entries =
 * "list" | "map"}, ... } }, the result's under "result". */
void api_push_result_fields(lua_State *L);

#endif
