-- iomoon.presets: IOMeter access specifications by name, and the named
-- workloads of the field reports iomoon grew from.
--
-- VMware I/O Analyzer names an access spec as BS_READ%Read_RANDOM%Random
-- ("8k_55%Read_80%Random", "0.5k_100%Read_0%Random"). presets.parse turns
-- such a string into a spec table {bs=, read=, random=}; presets.name turns
-- a spec back into the string.

local iomoon = require "iomoon"

local presets = {}

local errors = require "iomoon.errors"
local util = require "iomoon.util"

local input_error = errors.input

-- s as a message may show it: control bytes (a NUL, a newline) escaped
local shown = util.shown

--- "8k_55%Read_80%Random" -> {bs = 8192, read = 55, random = 80}.
-- Raises an input error naming the part that is wrong.
function presets.parse(s)
  if type(s) ~= "string" then input_error("access spec: a %s is not a string like \"8k_55%%Read_80%%Random\"", type(s)) end
  local raw = s
  s = shown(s)
  local bs, read, random = raw:match("^([^_]+)_([^_]+)_([^_]+)$")
  if not bs then
    input_error("access spec '%s': expected three parts BS_READ%%Read_RANDOM%%Random, like \"8k_55%%Read_80%%Random\"", s)
  end
  local ok, bytes = pcall(iomoon.size, bs)
  bs = shown(bs)
  if not ok then input_error("access spec '%s': block size '%s' is not a size (like 8k or 0.5k)", s, bs) end
  if bytes == 0 then input_error("access spec '%s': block size '%s' is zero", s, bs) end
  if bytes > iomoon.limits.max_bs then
    input_error("access spec '%s': block size '%s' is larger than the largest a phase runs, %s", s, bs,
      util.ioping_size(iomoon.limits.max_bs))
  end
  local function pct(part, word)
    local n = part:match("^(%d+%.?%d*)%%" .. word .. "$")
    n = tonumber(n)
    if not n or n > 100 then
      input_error("access spec '%s': '%s' is not a percentage of %s (like 55%%%s)", s, shown(part), word, word)
    end
    return n
  end
  return { bs = bytes, read = pct(read, "Read"), random = pct(random, "Random") }
end


-- the shortest decimal that reads back as exactly x (55, 62.5, 50.333333333333336)
local function shortest(x)
  for digits = 6, 17 do
    local s = string.format("%." .. digits .. "g", x)
    if tonumber(s) == x then return s end
  end
  return string.format("%.17g", x)
end

--- {bs = 8192, read = 55, random = 80} -> "8k_55%Read_80%Random".
function presets.name(spec)
  local bs = type(spec.bs) == "string" and iomoon.size(spec.bs) or spec.bs
  return string.format("%s_%s%%Read_%s%%Random", util.analyzer_size(bs), shortest(spec.read or 100), shortest(spec.random or 0))
end

--- The named workloads. Each is a phase fragment: a mix (or bs/read/random)
-- and the settings its source gives; `source` says where it comes from.
presets.workloads = {
  -- VMware I/O Analyzer (seed 004)
  ["Max Read IOPS"] = { spec = "0.5k_100%Read_0%Random", source = "VMware I/O Analyzer preset (seed 004)" },
  ["Max Write IOPS"] = { spec = "0.5k_0%Read_0%Random", source = "VMware I/O Analyzer preset (seed 004)" },
  ["Exchange 2007"] = { spec = "8k_55%Read_80%Random", source = "VMware I/O Analyzer's Exchange 2007 simulation (seed 004)" },
  ["SQL 64k"] = { spec = "64k_66%Read_100%Random", source = "VMware I/O Analyzer's SQL 64k simulation (seed 004)" },
  -- OpenPerformanceTest.icf (seed 003)
  ["Max Throughput-100%Read"] = { spec = "32k_100%Read_0%Random", source = "OpenPerformanceTest.icf (seed 003)" },
  ["RealLife-60%Rand-65%Read"] = { spec = "8k_65%Read_60%Random", source = "OpenPerformanceTest.icf (seed 003)" },
  ["Max Throughput-50%Read"] = { spec = "32k_50%Read_0%Random", source = "OpenPerformanceTest.icf (seed 003)" },
  ["Random-8k-70%Read"] = { spec = "8k_70%Read_100%Random", source = "OpenPerformanceTest.icf (seed 003)" },
  -- the OLTP mix of seed 002: two thirds reads, one third writes, random
  ["OLTP"] = { spec = "8k_66%Read_100%Random", source = "the 66 % read / 33 % write OLTP database mix (seed 002)" },
}

-- The workload named `name`, or else the one whose name is `name` in
-- another case ("oltp" for "OLTP"), and its name as presets.workloads has it.
local function find(name)
  if presets.workloads[name] then return presets.workloads[name], name end
  if type(name) ~= "string" then return nil end
  for n, w in pairs(presets.workloads) do
    if n:lower() == name:lower() then return w, n end
  end
end

--- A named workload as a phase fragment {name=, bs=, read=, random=}: a
-- table that is also a whole stream (phase.streams = { presets.get "OLTP",
-- ... }), named after the workload. The name is matched as written, else
-- in any case ("oltp").
function presets.get(name)
  local w, found = find(name)
  if not w then
    local names = {}
    for n in pairs(presets.workloads) do names[#names + 1] = n end
    table.sort(names)
    input_error("preset '%s' does not exist (presets: %s)", tostring(name), table.concat(names, ", "))
  end
  local p = presets.parse(w.spec)
  p.name = found
  return p
end

return presets
