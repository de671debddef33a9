/* fuzz_spec.c - libFuzzer: IOMeter access-spec strings through the Lua
 * library's presets.parse, in an embedded Lua state with the iomoon module.
 * Every input must either parse to a spec whose name parses back to the
 * same spec, or raise an iomoon input error: any other Lua error (a bug in
 * the parser) or a crash is a finding. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lua/lua_api.h"

static lua_State *L;

static const char check[] =
	"local presets = require 'iomoon.presets'\n"
	"local s = ...\n"
	"local ok, p = pcall(presets.parse, s)\n"
	"if not ok then\n"
	"  local mt = getmetatable(p)\n"
	"  assert(mt and mt.__name == 'iomoon.input_error', 'not an input error: ' .. tostring(p))\n"
	"  return\n"
	"end\n"
	"assert(math.type(p.bs) == 'integer' and p.bs > 0, 'bs')\n"
	"assert(p.read >= 0 and p.read <= 100 and p.random >= 0 and p.random <= 100, 'percentages')\n"
	"local q = presets.parse(presets.name(p))\n"
	"assert(q.bs == p.bs and q.read == p.read and q.random == p.random, 'round trip: ' .. presets.name(p))\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!L) {
		const char *dir = getenv("IOMOON_LUA_PATH");

		L = luaL_newstate();
		iomoon_lua_setup(L, dir ? dir : "lua");
	}
	if (luaL_loadbuffer(L, check, sizeof(check) - 1, "fuzz_spec") != LUA_OK)
		abort();
	lua_pushlstring(L, (const char *)data, size);
	if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
		fprintf(stderr, "fuzz_spec: %s\n", lua_tostring(L, -1));
		abort();
	}
	return 0;
}
