-- tap.lua - TAP from Lua test scripts (run by tests/lib.sh's lua_tap).
local tap = { n = tonumber(os.getenv("TAP_START") or "0") }

function tap.ok(cond, fmt, ...)
  tap.n = tap.n + 1
  print(string.format("%sok %d - " .. fmt, cond and "" or "not ", tap.n, ...))
  return cond
end

function tap.near(got, want, tol, fmt, ...)
  local good = math.abs(got - want) <= tol
  local what = string.format(fmt, ...)
  return tap.ok(good, "%s (got %.6g, want %.6g +- %.3g)", what, got, want, tol)
end

function tap.skip(why)
  tap.n = tap.n + 1
  print(string.format("ok %d # skip %s", tap.n, why))
end

-- Checks that hold a time or a rate to a bound (a median lateness, a
-- rate achieved, a knee found by timing): `make bench` runs them
-- (IOMOON_TIMING=1); `make test`, which a loaded machine runs too, shows
-- their figure and skips them. Counts and rules stay with tap.ok.
tap.timing = os.getenv("IOMOON_TIMING") == "1"

function tap.timed_ok(cond, fmt, ...)
  if tap.timing then return tap.ok(cond, fmt, ...) end
  tap.skip("timing, held by make bench: " .. string.format(fmt, ...))
  return true
end

function tap.timed_near(got, want, tol, fmt, ...)
  return tap.timed_ok(math.abs(got - want) <= tol, "%s (got %.6g, want %.6g +- %.3g)", string.format(fmt, ...),
    got, want, tol)
end

local INPUT_MT = debug.getregistry()["iomoon.input_error"]

-- Expect fn to raise an input error (that class, not any error) whose text
-- matches pattern.
function tap.refuses(pattern, fn, what)
  local ok, err = pcall(fn)
  local msg = tostring(err)
  local good = not ok and getmetatable(err) == INPUT_MT and msg:find(pattern) ~= nil
  tap.ok(good, "refuses %s: %s%s", what, ok and "(accepted)" or msg,
    (not ok and getmetatable(err) ~= INPUT_MT) and " (not an input error)" or "")
end

return tap
