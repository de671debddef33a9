-- library.lua: prints what plan and suite say of bad arguments (one line
-- each)
local plan, suite = require "iomoon.plan", require "iomoon.suite"
local function msg(f) local ok, e = pcall(f); return ok and "accepted" or tostring(e) end
local ph = { engine = "sim", bs = "4k", ios = 10 }
print(msg(function() plan.new():step { name = "x", phase = ph, times = 3, until_ok = function() return true end } end))
print(msg(function() plan.until_steady { phase = ph, max_rounds = 0 } end))
print(msg(function() plan.until_steady { phase = ph, window = 9, max_rounds = 3 } end))
print(msg(function() plan.is_steady({ 1, 2, 3 }, { window = 0 }) end))
print(msg(function() plan.find_max { phase = { engine = "sim", bs = "4k", duration = 0.1, rate = { iops = 5 } }, bound = "1ms" } end))
print(msg(function() suite.apply({ bs = "4k" }, { tiem = 1 }, {}) end))
print(msg(function() suite.check({ name = "m", defaluts = {}, phases = {} }, {}) end))
print(msg(function() suite.check({ name = "f", phases = function() return 5 end }, {}) end))
