-- A multi-phase burn-in plan: fill, wait for steady state, soak with checked
-- reads, and stop at once if latency or data goes bad.
--
--   iomoon run examples/burn-in-plan.lua TARGET [TIME] [WARM_ROUNDS]
local iomoon = require "iomoon"
local plan = require "iomoon.plan"

local path, time = arg[1] or "iomoon-example.dat", arg[2] or "1m"
local warm_rounds = math.tointeger(tonumber(arg[3] or "6")) -- at most this many rounds to reach steady state
-- an existing file or device is used at its own size; a new file is made at 1 GiB
local t = iomoon.target { path = path, size = not iomoon.stat(path) and "1g" or nil, fill = false }

local p = plan.new {
  name = "burn-in",
  after = function(step, r) print(string.format("%-22s %8.0f IOPS  p99 %.3f ms  %d errors",
    r.name, r.iops, r.lat.p99_ns / 1e6, r.errors)) end,
}
p:step { name = "fill", phase = { target = t, bs = "1m", read = 0, pattern = "offset", bytes = t:size(), qd = 8 } }
p:step { name = "warm", phase = { target = t, bs = "4k", read = 50, random = 100, qd = 16, duration = time,
                                  verify = "offset" },
         -- a round is "steady" once IOPS stopped moving (SNIA PTS's rule)
         until_ok = function(_, ctx)
           local iops = {}
           for i, r in ipairs(ctx.results.warm) do iops[i] = r.iops end
           return (plan.is_steady(iops, { window = 3 }))
         end, max = warm_rounds }
p:step { name = "soak", times = 2,
         phase = { target = t, bs = "64k", read = 70, random = 50, qd = 8, duration = time, verify = "offset" },
         fail_when = function(r) return r.lat.p99_ns > 500e6 end } -- half a second: something is wrong
p:step { name = "final check", phase = { target = t, bs = "1m", read = 100, verify = "offset", bytes = t:size(), qd = 8 } }

local ctx = p:run()
print(ctx.stopped and ("STOPPED: " .. ctx.stopped) or "burn-in passed")
os.exit(ctx.stopped and 1 or 0)
