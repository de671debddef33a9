-- man.lua: a pandoc Lua filter that turns doc/cli.md into the iomoon(1)
-- man page (make: $(BUILD)/iomoon.1). It changes the shape, never the
-- text of doc/cli.md:
--   * the H1 title goes (the page's title is in iomoon.1.yaml);
--   * NAME comes from the metadata; SYNOPSIS is the commands of the first
--     code block, DESCRIPTION the metadata's paragraph and what each
--     command does (the rest of each line of that block);
--   * the paragraph about tests/60-docs.t (the source tree's) is left out;
--   * "## iomoon VERB" sections go under COMMANDS as subsections, every
--     other "##" section becomes a section with an upper-case name;
--   * tables get column widths that fit an 80-column terminal (pandoc
--     gives every column the same share, which is too wide for tbl), and
--     room on the page before them (.ne);
--   * SEE ALSO comes from the metadata.

local stringify = pandoc.utils.stringify

-- Text of a width the man page's tables may use: 80 columns less the 7 of
-- the body's indent, 3 between columns, and a little slack.
local TABLE_CHARS = 68
local WIDTH_UNIT = 70 -- pandoc's man writer: a width of 1.0 is 70n
local FIRST_COLUMNS_MAX = 22

-- Blocks from a metadata value (Markdown text in the YAML).
local function meta_blocks(v)
  if v == nil then return {} end
  local first = v[1]
  if first and (first.t == "Para" or first.t == "Plain") then return v end
  return { pandoc.Para(v) }
end

local function header(level, text)
  return pandoc.Header(level, { pandoc.Str(text) })
end

-- SYNOPSIS and the DESCRIPTION's list from the usage block: each line is
-- "iomoon COMMAND ARGS   what it does".
local function usage_blocks(code)
  local lines, defs = {}, {}
  for line in code.text:gmatch("[^\n]+") do
    local cmd, what = line:match("^(%S.-)%s%s%s+(%S.*)$")
    cmd = cmd or line
    local rest = cmd:match("^iomoon%s+(.*)$")
    if #lines > 0 then lines[#lines + 1] = pandoc.LineBreak() end
    lines[#lines + 1] = pandoc.Strong { pandoc.Str("iomoon") }
    if rest then
      lines[#lines + 1] = pandoc.Space()
      lines[#lines + 1] = pandoc.Str(rest)
    end
    if what then
      defs[#defs + 1] = { { pandoc.Code(cmd) }, { pandoc.read(what, "markdown").blocks } }
    end
  end
  return pandoc.Para(lines), pandoc.DefinitionList(defs)
end

-- The widest plain text of column i over the given rows.
local function widest(rows, i, w)
  for _, row in ipairs(rows) do
    local cell = row.cells[i]
    if cell then w = math.max(w, #stringify(cell.contents)) end
  end
  return w
end

-- Column widths: every column but the last as wide as its widest cell (at
-- most FIRST_COLUMNS_MAX), the last one the rest.
local function fit_table(tbl)
  local n = #tbl.colspecs
  if n < 2 then return tbl end
  local rows = {}
  for _, r in ipairs(tbl.head.rows) do rows[#rows + 1] = r end
  for _, b in ipairs(tbl.bodies) do
    for _, r in ipairs(b.body) do rows[#rows + 1] = r end
  end
  local room = TABLE_CHARS - 3 * (n - 1)
  local used = 0
  for i = 1, n - 1 do
    local w = math.min(widest(rows, i, 1), FIRST_COLUMNS_MAX)
    tbl.colspecs[i] = { tbl.colspecs[i][1], w / WIDTH_UNIT }
    used = used + w
  end
  tbl.colspecs[n] = { tbl.colspecs[n][1], math.max(room - used, 20) / WIDTH_UNIT }
  return tbl
end

local function is_command(h)
  return stringify(h):match("^iomoon%s") ~= nil
end

function Pandoc(doc)
  local out = {}
  local add = function(b) out[#out + 1] = b end
  local meta = doc.meta
  add(header(1, "NAME"))
  add(pandoc.Para { pandoc.Str(stringify(meta.name or "iomoon")) })
  local in_commands, seen_h2, usage_done = false, false, false
  for _, b in ipairs(doc.blocks) do
    if b.t == "Header" and b.level == 1 then
      -- the page's title: dropped
    elseif not seen_h2 and b.t == "CodeBlock" and not usage_done then
      local synopsis, list = usage_blocks(b)
      usage_done = true
      add(header(1, "SYNOPSIS"))
      add(synopsis)
      add(header(1, "DESCRIPTION"))
      for _, d in ipairs(meta_blocks(meta.description)) do add(d) end
      add(list)
    elseif b.t == "Para" and stringify(b):find("tests/60-docs.t", 1, true) then
      -- about the source tree's tests, not the command
    elseif b.t == "Header" then
      seen_h2 = true
      if is_command(b) then
        if not in_commands then add(header(1, "COMMANDS")) end
        in_commands = true
        add(pandoc.Header(2, b.content))
      elseif b.level == 2 then
        in_commands = false
        add(header(1, stringify(b):upper()))
      else
        add(pandoc.Header(2, b.content))
      end
    elseif b.t == "Table" then
      -- room for the table first: on a terminal (one long page, cR) .ne
      -- lengthens the page, else tbl may find a text block past its end
      add(pandoc.RawBlock("man", ".if \\n[cR] .ne 60v"))
      add(fit_table(b))
    else
      add(b)
    end
  end
  if meta["see-also"] then
    add(header(1, "SEE ALSO"))
    for _, d in ipairs(meta_blocks(meta["see-also"])) do add(d) end
  end
  return pandoc.Pandoc(out, meta)
end
