-- A second LSP client: Neovim (>= 0.7) headless runs `python -m exportlens serve` on one file
-- and writes the diagnostics it receives to a JSON file. Driven by test_neovim.py:
--   nvim --headless -u NONE -c "luafile nvim_client.lua"
-- Environment: EXPORTLENS_NVIM_FILE (the model), EXPORTLENS_NVIM_ROOT (workspace folder),
-- EXPORTLENS_NVIM_PYTHON (interpreter), EXPORTLENS_NVIM_OUT (JSON written here),
-- EXPORTLENS_NVIM_WAIT_MS (a guard: give up after this long).
local file = os.getenv("EXPORTLENS_NVIM_FILE")
local root = os.getenv("EXPORTLENS_NVIM_ROOT")
local python = os.getenv("EXPORTLENS_NVIM_PYTHON")
local out = os.getenv("EXPORTLENS_NVIM_OUT")
local wait_ms = tonumber(os.getenv("EXPORTLENS_NVIM_WAIT_MS") or "300000")

local function finish(result)
  vim.fn.writefile({ vim.fn.json_encode(result) }, out)
  vim.cmd("qall!")
end

local ok, err = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  local exited = nil
  local client_id = vim.lsp.start_client({
    name = "exportlens",
    cmd = { python, "-m", "exportlens", "serve" },
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = "ws" } },
    settings = { exportlens = { debounceMs = 0 } },
    on_exit = function(code, signal)
      exited = { code = code, signal = signal }
    end,
  })
  if not client_id then
    return finish({ ok = false, error = "start_client failed" })
  end
  vim.lsp.buf_attach_client(buf, client_id)
  local got = vim.wait(wait_ms, function()
    return #vim.diagnostic.get(buf) > 0 or exited ~= nil
  end, 100)
  local diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local lsp = (d.user_data or {}).lsp or {}
    table.insert(diagnostics, {
      lnum = d.lnum,
      col = d.col,
      severity = d.severity,
      source = d.source,
      message = d.message,
      code = d.code or lsp.code,
    })
  end
  local client = vim.lsp.get_client_by_id(client_id)
  local server_name = client and client.server_capabilities and "exportlens" or nil
  vim.lsp.stop_client(client_id)
  vim.wait(10000, function()
    return exited ~= nil
  end, 50)
  finish({ ok = got, diagnostics = diagnostics, exited = exited, server = server_name })
end)
if not ok then
  finish({ ok = false, error = tostring(err) })
end
