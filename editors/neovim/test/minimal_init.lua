-- Init of each child Neovim in the tests: only the plugin and the runtime,
-- no user config, no shada, no providers (probing python3 blocks ~10 s).
for _, p in ipairs({ 'python3', 'node', 'perl', 'ruby' }) do
  vim.g['loaded_' .. p .. '_provider'] = 0
end
local here = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2))
local plugin = vim.fs.dirname(here)
vim.opt.runtimepath = { plugin, vim.env.VIMRUNTIME }
vim.opt.packpath = {}
vim.opt.shadafile = 'NONE'
vim.opt.swapfile = false
vim.opt.more = false
vim.opt.columns = 160
vim.opt.lines = 50
package.path = here .. '/?.lua;' .. package.path
