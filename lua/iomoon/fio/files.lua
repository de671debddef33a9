-- iomoon.fio.files: fio's jobs of many files as files phases
-- (doc/lua-api.md, "Files phases"): the filecreate, filestat, filedelete,
-- dircreate, dirstat and dirdelete engines (fio's one operation per file,
-- synchronous), and jobs of an I/O engine over nrfiles files each. Each
-- fio job is a worker with its own directory of nrfiles files (fio's
-- $jobname.$jobnum.$filenum become iomoon's w0/d0/f0 ...) under
-- --target, `directory`, or the current directory. What fio makes at
-- set-up (the files a stat or delete works on) is a phase of its own
-- before the measured one, and the tree is removed after it (fio's
-- unlink=0 would leave it: iomoon leaves no tree behind).
local job = require "iomoon.fio.job"
local errors = require "iomoon.errors"
local input_error = errors.input

local files = {}

-- the options this file maps (iomoon.fio.job's table: "map" or "noop")
for k, kind in pairs {
  nrfiles = "map", filesize = "map", openfiles = "map", create_on_open = "map", unlink = "map",
  file_service_type = "map", filename_format = "map", fallocate = "noop",
} do job.OPTIONS[k] = job.OPTIONS[k] or kind end

-- fio's file engines: the measured operation, what set-up makes first
-- (create: files of filesize; mkdir: directories), what cleans up
local ENGINES = {
  filecreate = { op = "create", clean = { "delete", "rmdir" } },
  filestat = { op = "stat", setup = "create", clean = { "delete", "rmdir" } },
  filedelete = { op = "delete", setup = "create", clean = { "rmdir" } },
  dircreate = { op = "mkdir", dirs = true, clean = { "rmdir" } },
  dirstat = { op = "dirstat", dirs = true, setup = "mkdir", clean = { "rmdir" } },
  dirdelete = { op = "rmdir", dirs = true, setup = "mkdir", clean = {} },
}
files.ENGINES = ENGINES

local function v(j, k)
  local o = j.o[k]
  if o == nil then return nil end
  return o.value == nil and true or o.value
end

local function what(j, k)
  local o = j.o[k]
  return string.format("%s: %s", o and o.where or j.where, o and o.given or k)
end

--- Is job j one of many files (a file engine, or nrfiles above 1)?
function files.is_files_job(j)
  local e = (v(j, "ioengine") or ""):lower()
  if ENGINES[e] then return true end
  return v(j, "nrfiles") ~= nil and job.int(v(j, "nrfiles"), what(j, "nrfiles"), 1) > 1
end

-- The kind of a job: its engine's, or an I/O engine's pass over its files
-- (rw read/randread: read; write/randwrite: write, after a set-up create).
local function kind_of(j)
  local e = (v(j, "ioengine") or "psync"):lower()
  if ENGINES[e] then return e, ENGINES[e] end
  local rw = (v(j, "rw") or "read"):lower()
  if rw == "read" or rw == "randread" then return e, { op = "read", setup = "create", clean = { "delete", "rmdir" } } end
  if rw == "write" or rw == "randwrite" then return e, { op = "write", setup = "create", clean = { "delete", "rmdir" } } end
  input_error("%s=%s: over nrfiles files iomoon reads or writes each file whole (rw=read or rw=write)", what(j, "rw"), rw)
end

-- One fio job's part: workers (numjobs), nrfiles, filesize, the engine.
local function part_of(j, kb)
  local e, k = kind_of(j)
  local n = v(j, "nrfiles") and job.int(v(j, "nrfiles"), what(j, "nrfiles"), 1) or 1
  local size = v(j, "filesize") or v(j, "size")
  size = size and size ~= true and job.size(size, kb, what(j, v(j, "filesize") and "filesize" or "size")) or 0
  if e ~= "filecreate" and not k.dirs and not v(j, "filesize") and v(j, "size") then size = size // n end
  return { engine = e, kind = k, workers = v(j, "numjobs") and job.int(v(j, "numjobs"), what(j, "numjobs"), 1, 256) or 1,
    nrfiles = n, size = e == "filecreate" and 0 or size, j = j }
end

-- The notes of options whose effect iomoon has in its own way.
local function notes_of(j, notes)
  local said = {
    openfiles = "iomoon opens one file per slot at a time and closes it with the operation",
    create_on_open = "iomoon creates a file in the measured operation (as create_on_open=1)",
    file_service_type = "iomoon works a job's files one after another (file_service_type=sequential)",
    filename_format = "iomoon names the files of a job w<job>/d0/f<n> beneath its tree (doc/lua-api.md)",
    unlink = "iomoon removes the tree after the measured phase whatever unlink says",
  }
  for k, text in pairs(said) do
    if j.o[k] and not notes[k] then notes[k] = true; notes[#notes + 1] = string.format("%s: %s", what(j, k), text) end
  end
end

-- The phases of one group of files jobs (run together, as fio runs them).
local function group_phases(group, ctx, out, notes)
  local first = group[1]
  local workers = 0
  for _, p in ipairs(group) do
    if p.engine ~= first.engine or p.nrfiles ~= first.nrfiles or p.size ~= first.size then
      input_error("%s: the jobs of one group run as one files phase: ioengine, nrfiles and filesize must agree "
        .. "(%s, %d, %d here; %s, %d, %d before): separate them with stonewall", p.j.where, p.engine, p.nrfiles, p.size,
        first.engine, first.nrfiles, first.size)
    end
    workers = workers + p.workers
    notes_of(p.j, notes)
  end
  local j, k = first.j, first.kind
  local dir = ctx.target or v(j, "directory") or "."
  local tree = { dir = dir, allow_write = ctx.allow_write or nil }
  if k.dirs then tree.dirs, tree.files = first.nrfiles, 1 else tree.dirs, tree.files, tree.size = 1, first.nrfiles, first.size end
  local names = {}
  for i, p in ipairs(group) do names[i] = p.j.name end
  local name = #group == 1 and first.j.name or table.concat(names, " + ")
  if #name > 100 then name = name:sub(1, 97) .. "..." end
  local engine = (first.engine == "io_uring" or first.engine == "libaio") and "io_uring" or "psync"
  local qd = engine == "io_uring" and v(j, "iodepth") and job.int(v(j, "iodepth"), what(j, "iodepth"), 1, 4096) or 1
  local function phase(op, label)
    local ph = { name = label and (name .. " (" .. label .. ")") or name, files = tree, op = op, workers = workers,
      engine = engine, qd = qd }
    if op == "read" or op == "write" then
      ph.bs = v(j, "bs") and job.size(v(j, "bs"), 1024, what(j, "bs")) or 4096
      if v(j, "direct") then ph.direct = job.bool(v(j, "direct"), what(j, "direct")) or nil end
    end
    out[#out + 1] = ph
  end
  if k.setup then phase(k.setup, "set-up") end
  phase(k.op)
  for _, op in ipairs(k.clean) do phase(op, "clean-up") end
end

--- The phases of fio jobs of many files (every one of `jobs`: a files
-- job). ctx: target, allow_write. Returns phases and notes.
function files.phases(jobs, ctx)
  local groups, cur, notes = {}, nil, {}
  for i, j in ipairs(jobs) do
    if not files.is_files_job(j) then
      input_error("%s: a job of one file among jobs of many files (a file engine or nrfiles): run them from "
        .. "separate job files", j.where)
    end
    local kb = v(j, "kb_base") and job.int(v(j, "kb_base"), what(j, "kb_base"), 1000, 1024) or 1024
    local stone = v(j, "stonewall") and job.bool(v(j, "stonewall"), what(j, "stonewall"))
    if not cur or (stone and i > 1) then cur = {}; groups[#groups + 1] = cur end
    cur[#cur + 1] = part_of(j, kb)
  end
  local out = {}
  for _, g in ipairs(groups) do group_phases(g, ctx or {}, out, notes) end
  local lines = {}
  for _, n in ipairs(notes) do lines[#lines + 1] = n end
  return out, lines
end

return files
