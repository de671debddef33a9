--- iomoon.html: one self-contained HTML report (doc/reports.md).
local errors = require "iomoon.errors"

local html = {}

--- The whole report of `results` as one HTML document (a string).
-- machine: the description of the machine that ran them (iomoon.machine()'s
-- table; nil: this machine's, when it can be read).
function html.render(results, machine)
  local _ = results and machine
  errors.run("the html report is not built yet")
end

return html
