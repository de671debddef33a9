-- iomoon.suite: find, load and run bench suites.
--
-- A suite file (bench-suites/NAME.lua, or any path) returns a table:
--   { name = "quick", description = "one line", source = "where the numbers come from",
--     size = "1g",                   -- test area when the target is created
--     phases = function(opts) return { phase, ... } end }
-- opts carries what the command line gave: target (an iomoon.target), and
-- time, qd, engine, workers when given (nil otherwise). A suite uses them
-- as overrides of its own settings: see suite.apply.

local iomoon = require "iomoon"

local suite = {}

--- The directory of the ready suites shipped with iomoon.
function suite.dir()
  return (iomoon.lua_dir or "lua") .. "/../bench-suites"
end

--- Names of the ready suites, sorted.
function suite.list()
  local names = {}
  local p = io.popen('ls "' .. suite.dir() .. '" 2>/dev/null')
  if p then
    for f in p:lines() do
      local n = f:match("^(.-)%.lua$")
      if n then names[#names + 1] = n end
    end
    p:close()
  end
  table.sort(names)
  return names
end

--- Load a suite by name or path; raises a bad-input error listing the ready ones.
function suite.load(name_or_path)
  local path = name_or_path
  if not name_or_path:find("/") and not name_or_path:find("%.lua$") then
    path = suite.dir() .. "/" .. name_or_path .. ".lua"
  end
  local chunk, err = loadfile(path)
  if not chunk then
    if not io.open(path, "r") then
      return nil, string.format("suite '%s' does not exist (ready suites: %s; or give a file path)",
        name_or_path, table.concat(suite.list(), ", "))
    end
    return nil, err
  end
  local s = chunk()
  if type(s) ~= "table" or type(s.phases) ~= "function" then
    return nil, string.format("suite %s: the file must return {name=, phases=function(opts)}", path)
  end
  s.name = s.name or name_or_path
  return s
end

--- Copy a phase and put the command line's overrides into it.
function suite.apply(phase, opts)
  local p = {}
  for k, v in pairs(phase) do p[k] = v end
  p.target = p.target or opts.target
  if opts.time then p.duration = opts.time end
  if opts.ramp then p.ramp = opts.ramp end
  if opts.qd then p.qd = opts.qd end
  if opts.engine then p.engine = opts.engine end
  if opts.workers then p.workers = opts.workers end
  if opts.direct ~= nil then p.direct = opts.direct end
  return p
end

--- Run every phase of a loaded suite; returns the list of results.
function suite.run(s, opts)
  local results = {}
  for _, phase in ipairs(s.phases(opts)) do
    results[#results + 1] = iomoon.run(suite.apply(phase, opts))
    if iomoon.interrupted() then break end
  end
  return results
end

return suite
