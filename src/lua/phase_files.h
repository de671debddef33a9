/* phase_files.h - files phases from Lua (phase_files.c): iomoon.run and
 * iomoon.check hand a phase table with `files` here. */
#ifndef IOMOON_PHASE_FILES_H
#define IOMOON_PHASE_FILES_H

#include <lua.h>

/* Is the value at idx a files phase (a table with `files`)? */
int api_is_files_phase(lua_State *L, int idx);
/* iomoon.check of a files phase at index 1: true, or the input error. */
int api_check_files(lua_State *L);
/* iomoon.run of a files phase at index 1: the result table on top (not
 * yet sealed or delivered); phase_no names it when it has no name. */
int api_run_files(lua_State *L, long long phase_no);

#endif
