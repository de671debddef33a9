-- iomoon.report.file: where a report goes. The output path checked before
-- anything runs (file.check_output), the one atomic, durable writer
-- (file.write_atomic, over the core's iomoon.write_atomic) and the report
-- file kept complete while results come in (file.writer). The formats
-- themselves are iomoon.report's; it gives these as report.check_output,
-- report.write_atomic and report.writer.

local iomoon = require "iomoon"
local errors = require "iomoon.errors"
local util = require "iomoon.util"

local file = {}

local visible = util.shown

-- "-", "/dev/stdout" and "/dev/fd/1" mean standard output
local STDOUT = { ["-"] = true, ["/dev/stdout"] = true, ["/dev/fd/1"] = true }

--- A report file kept complete while results come in: w:add(result)
-- rewrites `path` atomically with render(results), the report in
-- `format` (csv, json, table, analyzer, markdown: a name for messages), so a long suite stopped at any point leaves a valid file
-- holding every finished phase (SIGINT, SIGTERM, SIGHUP and a closed
-- stdout all end in w:close()). When results come faster than the file can
-- be rewritten (thousands of short phases), a rewrite is skipped while the
-- last one took more than a tenth of the time since it, so only a SIGKILL
-- can find the file some results behind. A path of "-" (or /dev/stdout) writes the
-- report to standard output once, on w:close(). A failed write raises a run
-- error and leaves the previous file; the results stay in w.results.
function file.writer(path, format, render)
  local w = { path = path, format = format, results = {}, stdout = STDOUT[path] or false }
  function w:render()
    local ok, s = pcall(render, self.results)
    if not ok then
      errors.run("report %s: the %s report cannot be rendered (%s); the previous file is kept",
        visible(self.path), self.format, visible(s))
    end
    return s
  end
  -- Rewriting the whole file after every result costs time that grows
  -- with the number of results: a rewrite is skipped while the last one
  -- took more than a tenth of the time since (so rewriting is at most about
  -- a tenth of the run); close always writes.
  w.last_end, w.last_cost = 0, 0
  function w:add(r)
    self.results[#self.results + 1] = r
    if self.stdout then return end
    local now = iomoon.now()
    if self.last_cost * 10 > now - self.last_end then return end
    file.write_atomic(self.path, self:render())
    self.last_end = iomoon.now()
    self.last_cost = self.last_end - now
  end
  function w:close()
    if self.stdout then
      io.stdout:write(self:render())
      io.stdout:flush()
    else
      file.write_atomic(self.path, self:render())
    end
  end
  return w
end

--- Write `s` to `path` atomically and durably (iomoon.write_atomic): a
-- temporary file beside it (O_EXCL), every write checked, fsync, rename,
-- fsync of the directory. On any failure the temporary file is removed,
-- `path` keeps its previous contents, and a run error names the path and
-- the reason. Only a regular file (or nothing) at `path` is replaced.
function file.write_atomic(path, s)
  iomoon.write_atomic(path, s)
end

-- "dir/name" -> "dir", "name"
local function split(path)
  local dir, base = path:match("^(.*)/([^/]*)$")
  if not dir then return ".", path end
  return dir == "" and "/" or dir, base
end

-- what a path names: its file (device and inode) if it exists, else the
-- name in its directory
local function identity(path)
  local st = iomoon.stat(path)
  if st then return st.dev .. ":" .. st.ino end
  local dir, base = split(path)
  local ds = iomoon.stat(dir)
  if ds then return ds.dev .. ":" .. ds.ino .. "/" .. base end
  return "?" .. path
end

-- the paths of a target list (strings, {path = ...} tables, target
-- objects, lists of them), each as { path, input }: input is what a
-- {path =, input =} table says the file is to the command ("the results
-- file A"), nil for a target of the run
local function target_paths(t, out, seen)
  if type(t) == "string" then
    out[#out + 1] = { path = t }
  elseif type(t) == "userdata" then
    local ok, p = pcall(function() return t:path() end)
    if ok and type(p) == "string" then out[#out + 1] = { path = p } end
  elseif type(t) == "table" and not seen[t] then
    seen[t] = true
    if type(rawget(t, "path")) == "string" then
      local input = rawget(t, "input")
      out[#out + 1] = { path = t.path, input = type(input) == "string" and input or nil }
    end
    for _, v in ipairs(t) do target_paths(v, out, seen) end
  end
  return out
end

local KINDS = {
  directory = "a directory", block = "a block device", char = "a character device", fifo = "a FIFO",
  socket = "a socket", other = "a special file",
}

--- Check an output path before anything runs. Returns "-" when `path`
-- means standard output ("-", "/dev/stdout", "/dev/fd/1"), else `path`.
-- Raises an input error (naming `what`, default "--output") when `path`
-- is a symbolic link, exists and is not a regular file (a device, FIFO,
-- socket, directory), is the same file as (or the same name as a file to
-- be created for) any of `targets` (a path, a target table or object, or a
-- list of them; a `{path =, input =}` table is a file the command reads,
-- named in the message as `input` says: "the results file A"), or its
-- directory does not exist or is not writable.
-- Nothing is created or opened: a FIFO is never opened.
--- Whether `path` names standard output ("-", "/dev/stdout", "/dev/fd/1").
function file.is_stdout(path)
  return STDOUT[path] == true
end

function file.check_output(path, targets, what)
  what = what or "--output"
  if type(path) ~= "string" or path == "" then
    errors.input("%s: a file name is needed (or - for standard output)", what)
  end
  if STDOUT[path] then return "-" end
  local shown = visible(path)
  local st, err, errno = iomoon.stat(path, false)
  if st then
    if st.kind == "link" then
      errors.input("%s: '%s' is a symbolic link; give the path of the file itself", what, shown)
    elseif st.kind ~= "file" then
      errors.input("%s: '%s' is %s, not a regular file (use - for standard output)", what, shown, KINDS[st.kind])
    end
  elseif path:sub(-1) == "/" then
    errors.input("%s: '%s' is a directory, not a file name", what, shown)
  elseif errno ~= 2 then -- ENOENT: a new file
    errors.input("%s: '%s': %s", what, shown, err)
  end
  local dir = split(path)
  local ds = iomoon.stat(dir)
  if not ds or ds.kind ~= "directory" then
    errors.input("%s: '%s': directory '%s' does not exist", what, shown, visible(dir))
  elseif not ds.writable then
    errors.input("%s: '%s': directory '%s' is not writable", what, shown, visible(dir))
  end
  local id = identity(path)
  for _, t in ipairs(target_paths(targets, {}, {})) do
    if identity(t.path) == id then
      errors.input("%s: '%s' is %s (%s); the report would replace it", what, shown, t.input or "a target of this run",
        visible(t.path))
    end
  end
  return path
end

return file
