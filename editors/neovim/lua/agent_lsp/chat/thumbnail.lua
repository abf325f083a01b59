--- Thumbnails of a prompt's images in the chat: the sidecar scales an
--- image to a grid of colours (agent/thumbnail), drawn here as virtual
--- lines of half blocks, "▀" with the upper pixel as its foreground and
--- the lower one as its background. It needs true colour
--- ('termguicolors'); without it, or with `chat.thumbnails = false`, the
--- image's line ("🖼 shot.png (12 KB)") stays the only sign of it.
local M = {}

local api = vim.api

--- The most cells a thumbnail takes: 32 columns (fewer in a narrow
--- window) by 8 rows.
M.max_cols, M.max_rows = 32, 8

--- The most highlight groups thumbnails define; past it the next images
--- keep only their line (Neovim has room for about 20000 groups).
M.max_groups = 8000

-- Highlight groups by name, with their colours: defined again after a
-- colorscheme clears them.
local groups, ngroups = {}, 0

api.nvim_create_autocmd('ColorScheme', {
  group = api.nvim_create_augroup('agent_lsp_thumbnail', { clear = true }),
  callback = function()
    for name, spec in pairs(groups) do
      api.nvim_set_hl(0, name, spec)
    end
  end,
})

--- A pixel's colour, each channel rounded to 32 levels (fewer groups, the
--- same picture at this size); nil for a transparent pixel.
local function quantize(px)
  if type(px) ~= 'string' or not px:match('^#%x%x%x%x%x%x$') then
    return nil
  end
  local out = { '#' }
  for i = 2, 6, 2 do
    local v = math.min(255, math.floor(tonumber(px:sub(i, i + 1), 16) / 8 + 0.5) * 8)
    table.insert(out, ('%02x'):format(v))
  end
  return table.concat(out)
end

--- The group that draws fg over bg (either may be nil); nil when no more
--- groups may be defined.
local function group(fg, bg)
  local name = ('AgentLspPx%s_%s'):format(fg and fg:sub(2) or 'none', bg and bg:sub(2) or 'none')
  if not groups[name] then
    if ngroups >= M.max_groups then
      return nil
    end
    local spec = { fg = fg, bg = bg }
    groups[name] = spec
    ngroups = ngroups + 1
    api.nvim_set_hl(0, name, spec)
  end
  return name
end

--- The virtual lines of a thumbnail's pixels (agent/thumbnail's result),
--- indented by `indent` spaces; nil when they are not rows of pixels or
--- the highlight groups ran out.
---@param pixels any
---@param indent integer?
---@return table[]?
function M.lines(pixels, indent)
  if type(pixels) ~= 'table' or #pixels == 0 then
    return nil
  end
  local lines = {}
  for y = 1, #pixels, 2 do
    local top, bottom = pixels[y], pixels[y + 1] or {}
    if type(top) ~= 'table' or type(bottom) ~= 'table' then
      return nil
    end
    local line = { { (' '):rep(indent or 0) } }
    local last_glyph, last_hl -- of the line's last chunk, to extend it
    for x = 1, #top do
      local t, b = quantize(top[x]), quantize(bottom[x])
      local glyph, hl = ' ', nil
      if t then
        glyph, hl = '▀', group(t, b)
      elseif b then
        glyph, hl = '▄', group(b, nil)
      end
      if glyph ~= ' ' and not hl then
        return nil
      end
      if x > 1 and glyph == last_glyph and hl == last_hl then
        line[#line][1] = line[#line][1] .. glyph
      else
        table.insert(line, { glyph, hl })
      end
      last_glyph, last_hl = glyph, hl
    end
    table.insert(lines, line)
  end
  return lines
end

--- Whether thumbnails are drawn now.
---@param enabled boolean the chat.thumbnails setting
function M.enabled(enabled)
  return enabled and vim.o.termguicolors
end

--- The cells a thumbnail may take in a window `width` columns wide.
---@param width integer
---@return integer cols, integer rows
function M.size(width)
  return math.max(4, math.min(M.max_cols, width - 6)), M.max_rows
end

return M
