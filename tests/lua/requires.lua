-- tests/lua/requires.lua: the Lua library's require graph (tests/71-lua-requires.t).
-- arg[1]: tests/; arg[2]: the folder holding iomoon/ (lua/); then every
-- library file, relative to it (iomoon/fio/job.lua is iomoon.fio.job).
--
-- Each file is read as Lua tokens (comments and strings skipped, so a
-- require inside a string, as the converters write one, is not one). The
-- rules: a require names a module of the library (or the core, "iomoon")
-- as a literal string; it sits at the top level of its file, not inside a
-- function (a require inside a function is how a cycle gets hidden),
-- unless its line says why with a comment "lazy load: REASON"; and the
-- graph of the requires, lazy ones included, has no cycle.
local tap = dofile(arg[1] .. "/tap.lua")
local root = arg[2]

-- the tokens of Lua source text: { kind = "word" | "string" | "punct", v, line },
-- and the lines holding a "lazy load:" comment
local function tokens(text)
  local out, lazy = {}, {}
  local i, line, n = 1, 1, #text
  local function newlines(s) line = line + select(2, s:gsub("\n", "")) end
  while i <= n do
    local c = text:sub(i, i)
    local long = text:match("^%[(=*)%[", i)
    if c == "\n" then
      line = line + 1
      i = i + 1
    elseif c:match("%s") then
      i = i + 1
    elseif text:sub(i, i + 1) == "--" then
      local eq = text:match("^%-%-%[(=*)%[", i)
      local stop
      if eq then
        stop = select(2, text:find("]" .. eq .. "]", i, true)) or n
      else
        stop = (text:find("\n", i, true) or n + 1) - 1
      end
      local comment = text:sub(i, stop)
      if comment:find("lazy load:", 1, true) then lazy[line] = true end
      newlines(comment)
      i = stop + 1
    elseif long then
      local stop = select(2, text:find("]" .. long .. "]", i, true)) or n
      out[#out + 1] = { kind = "string", v = text:sub(i + #long + 2, stop - #long - 2), line = line }
      newlines(text:sub(i, stop))
      i = stop + 1
    elseif c == '"' or c == "'" then
      local j, buf = i + 1, {}
      while j <= n and text:sub(j, j) ~= c do
        if text:sub(j, j) == "\\" then j = j + 1 end
        buf[#buf + 1] = text:sub(j, j)
        j = j + 1
      end
      out[#out + 1] = { kind = "string", v = table.concat(buf), line = line }
      newlines(text:sub(i, j))
      i = j + 1
    elseif c:match("[%a_]") then
      local w = text:match("^[%w_]+", i)
      out[#out + 1] = { kind = "word", v = w, line = line }
      i = i + #w
    elseif c:match("%d") then
      i = i + #text:match("^[%w_.]+", i)
    else
      out[#out + 1] = { kind = "punct", v = c, line = line }
      i = i + 1
    end
  end
  return out, lazy
end

local OPENS = { ["function"] = true, ["do"] = true, ["if"] = true, ["repeat"] = true }

--- The requires of Lua source text: a list of { name, line, in_function,
-- lazy }, name nil for a require not called with a literal string.
local function requires(text)
  local toks, lazy = tokens(text)
  local found, stack, in_fn = {}, {}, 0
  for k, t in ipairs(toks) do
    if t.kind == "word" then
      if OPENS[t.v] then
        stack[#stack + 1] = t.v
        if t.v == "function" then in_fn = in_fn + 1 end
      elseif t.v == "end" or t.v == "until" then
        if table.remove(stack) == "function" then in_fn = in_fn - 1 end
      elseif t.v == "require" and not (toks[k - 1] and (toks[k - 1].v == "." or toks[k - 1].v == ":")) then
        local nx = toks[k + 1]
        local name
        if nx and nx.kind == "string" then name = nx.v
        elseif nx and nx.v == "(" and toks[k + 2] and toks[k + 2].kind == "string" and toks[k + 3]
          and toks[k + 3].v == ")" then name = toks[k + 2].v end
        found[#found + 1] = { name = name, line = t.line, in_function = in_fn > 0, lazy = lazy[t.line] or false }
      end
    end
  end
  return found
end

--- The first cycle of graph (module -> list of modules it requires) as
-- "a -> b -> a", or nil.
local function cycle(graph)
  local state, path = {}, {}
  local names = {}
  for m in pairs(graph) do names[#names + 1] = m end
  table.sort(names)
  local function visit(m)
    if state[m] == "open" then
      local from = 1
      while path[from] ~= m do from = from + 1 end
      local c = { table.unpack(path, from) }
      c[#c + 1] = m
      return table.concat(c, " -> ")
    end
    if state[m] == "done" then return nil end
    state[m] = "open"
    path[#path + 1] = m
    for _, d in ipairs(graph[m] or {}) do
      local c = visit(d)
      if c then return c end
    end
    path[#path] = nil
    state[m] = "done"
    return nil
  end
  for _, m in ipairs(names) do
    local c = visit(m)
    if c then return c end
  end
  return nil
end

-- the module a library file is: iomoon/fio/job.lua -> iomoon.fio.job
local function module_of(rel)
  return (rel:gsub("%.lua$", ""):gsub("/init$", ""):gsub("/", "."))
end

--- Check sources (module -> text): the graph, and the problems (texts).
local function check(sources)
  local graph, problems = {}, {}
  for m, text in pairs(sources) do
    graph[m] = {}
    for _, r in ipairs(requires(text)) do
      local at = string.format("%s:%d", m, r.line)
      if not r.name then
        problems[#problems + 1] = at .. ": require not called with a module name in quotes"
      elseif r.name ~= "iomoon" and not sources[r.name] then
        problems[#problems + 1] = string.format("%s: requires %s, not a module of the library", at, r.name)
      else
        if r.name ~= "iomoon" then table.insert(graph[m], r.name) end
        if r.in_function and not r.lazy then
          problems[#problems + 1] = string.format("%s: requires %s inside a function (top level only, or a "
            .. "\"lazy load: REASON\" comment on its line)", at, r.name)
        end
      end
    end
  end
  table.sort(problems)
  return graph, problems
end

-- ---- the checker checked on small sources ----

local base = {
  ["iomoon.a"] = 'local b = require "iomoon.b"\nlocal s = [[require "iomoon.c"]] -- require "iomoon.c"\nreturn {}',
  ["iomoon.b"] = 'local iomoon = require("iomoon")\nlocal t = { ["end"] = "x" }\nreturn {}',
  ["iomoon.c"] = 'local function f()\n  if x then return require("iomoon.a") end\nend\nreturn {}',
}
local g, p = check(base)
tap.ok(#g["iomoon.a"] == 1 and #g["iomoon.b"] == 0 and #p == 1 and p[1]:find("^iomoon.c:2: requires iomoon.a inside a function"),
  "checker: a require inside a function is found, one in a string or a comment is not (%s)", table.concat(p, "; "))
tap.ok(cycle(g) == nil, "checker: a -> b, c -> a is no cycle")
base["iomoon.b"] = 'local a = require "iomoon.a"\nreturn {}'
g = check(base)
tap.ok(cycle(g) == "iomoon.a -> iomoon.b -> iomoon.a", "checker: a -> b -> a is a cycle (%s)", cycle(g))
g, p = check({ ["iomoon.a"] = 'local function f() return require "iomoon.b" end -- lazy load: only for --x\nreturn {}',
  ["iomoon.b"] = 'return require "iomoon.a"' })
tap.ok(#p == 0 and cycle(g) == "iomoon.a -> iomoon.b -> iomoon.a",
  "checker: a lazy load said so is allowed, and still counts for cycles")
_, p = check({ ["iomoon.a"] = 'local ok, h = pcall(require, "iomoon.b")\nlocal x = require "iomoon.nope"\nreturn {}' })
tap.ok(#p == 2 and p[1]:find("not called with a module name") and p[2]:find("iomoon.nope, not a module"),
  "checker: pcall(require, ...) and an unknown module are refused (%s)", table.concat(p, "; "))

-- ---- the library ----

local sources, count = {}, 0
for i = 3, #arg do
  local f = assert(io.open(root .. "/" .. arg[i], "rb"))
  sources[module_of(arg[i])] = f:read("a")
  f:close()
  count = count + 1
end
local graph, problems = check(sources)
local edges = 0
for _, ds in pairs(graph) do edges = edges + #ds end
tap.ok(count >= 20 and sources["iomoon.cli"] and sources["iomoon.fio.job"],
  "the library's %d files are read, subfolders included", count)
tap.ok(#problems == 0, "every require of the library's %d files is at its top level and names a library module%s", count,
  #problems > 0 and ": " .. table.concat(problems, "; ") or "")
local c = cycle(graph)
tap.ok(c == nil, "the library's require graph (%d modules, %d requires) has no cycle%s", count, edges,
  c and ": " .. c or "")
