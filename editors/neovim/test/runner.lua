-- Test runner, run by run.sh as `nvim -l runner.lua`. Each case runs in a
-- fresh child Neovim (NVIM_WRAPPER: the wrapper script, not v:progpath,
-- which is trixie's loader) with minimal_init.lua; the child writes its
-- result to a file. A child that outlives its deadline is killed.
local here = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2))
package.path = here .. '/?.lua;' .. package.path

local nvim = assert(vim.env.NVIM_WRAPPER, 'NVIM_WRAPPER is not set')
local filter = vim.env.TEST_FILTER or ''
local case_timeout = tonumber(vim.env.TEST_CASE_TIMEOUT or '') or 90000
local tmp = assert(vim.env.TEST_TMP, 'TEST_TMP is not set')

local files = vim.fn.glob(here .. '/*_spec.lua', false, true)
table.sort(files)

local passed, failed, failures = 0, 0, {}
local t_all = vim.uv.hrtime()
for _, file in ipairs(files) do
  local spec = dofile(file)
  local base = vim.fn.fnamemodify(file, ':t:r')
  for _, case in ipairs(spec) do
    local full = base .. ': ' .. case.name
    if filter == '' or full:find(filter, 1, true) then
      local result = ('%s/result-%d.json'):format(tmp, passed + failed + 1)
      os.remove(result)
      local t0 = vim.uv.hrtime()
      local cmd = {
        nvim,
        '--headless',
        '-n',
        '-i',
        'NONE',
        '-u',
        here .. '/minimal_init.lua',
        '-c',
        ('lua require("harness").run(%q, %q, %q)'):format(file, case.name, result),
      }
      local proc = vim.system(cmd, { text = true, timeout = case_timeout, stdin = false })
      local res = proc:wait()
      local ms = (vim.uv.hrtime() - t0) / 1e6
      local ok, msg = false, nil
      local f = io.open(result, 'r')
      if f then
        local decoded = vim.json.decode(f:read('*a'))
        f:close()
        ok, msg = decoded.ok, decoded.message
      elseif res.signal and res.signal ~= 0 then
        msg = ('killed after %d ms (signal %d): the case hung'):format(ms, res.signal)
      else
        msg = ('the child Neovim exited (code %d) without a result'):format(res.code)
      end
      if ok then
        passed = passed + 1
        io.stdout:write(('ok   %s (%.1fs)\n'):format(full, ms / 1000))
        if vim.env.TEST_VERBOSE and res.stderr and res.stderr ~= '' then
          io.stdout:write('     ' .. vim.trim(res.stderr):gsub('\n', '\n     ') .. '\n')
        end
      else
        failed = failed + 1
        io.stdout:write(('FAIL %s (%.1fs)\n'):format(full, ms / 1000))
        local detail = ('%s\n%s'):format(msg or '', vim.trim((res.stderr or '') .. '\n' .. (res.stdout or '')))
        io.stdout:write('     ' .. detail:gsub('\n', '\n     ') .. '\n')
        table.insert(failures, full)
      end
      io.stdout:flush()
    end
  end
end

io.stdout:write(('\nneovim tests: %.1fs\n'):format((vim.uv.hrtime() - t_all) / 1e9))
for _, f in ipairs(failures) do
  io.stdout:write('failed: ' .. f .. '\n')
end
io.stdout:write(('%d passed, %d failed\n'):format(passed, failed))
io.stdout:flush()
if passed + failed == 0 then
  io.stdout:write('no test matched TEST_FILTER=' .. filter .. '\n')
  os.exit(1)
end
os.exit(failed == 0 and 0 or 1)
