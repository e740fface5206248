//! `retrylint server` with a real editor: a headless Neovim, its built-in language client
//! started as `docs/src/editors.md` says, shows the diagnostics `retrylint check` reports.
//! Skipped, saying so, where `nvim` is not installed.

use std::process::Command;

use crate::common::{copy_fixture, retrylint_in, scratch};

/// A headless Neovim as the client: it opens the file, waits for the server's diagnostics
/// of it, writes each as `line:column rule` and quits (exit 3 if none came in 20 s).
/// Written for Neovim 0.7 and later (`vim.lsp.start_client`).
const CLIENT: &str = r"
local bin, file, out = vim.env.RETRYLINT_BIN, vim.env.RETRYLINT_FILE, vim.env.RETRYLINT_OUT
local client = vim.lsp.start_client({
  name = 'retrylint',
  cmd = { bin, 'server' },
  root_dir = vim.fn.fnamemodify(file, ':h'),
})
vim.cmd('edit ' .. vim.fn.fnameescape(file))
vim.lsp.buf_attach_client(0, client)
local buffer = vim.api.nvim_get_current_buf()
local deadline = vim.loop.now() + 20000
local timer = vim.loop.new_timer()
timer:start(100, 100, vim.schedule_wrap(function()
  local shown = vim.diagnostic.get(buffer)
  if #shown > 0 then
    timer:stop()
    local lines = {}
    for _, d in ipairs(shown) do
      table.insert(lines, string.format('%d:%d %s', d.lnum + 1, d.col + 1, d.code or '-'))
    end
    table.sort(lines)
    vim.fn.writefile(lines, out)
    vim.lsp.stop_client(client)
    vim.cmd('qall!')
  elseif vim.loop.now() > deadline then
    timer:stop()
    vim.cmd('cquit 3')
  end
end))
";

#[test]
fn neovim_shows_the_diagnostics_check_reports() {
    if Command::new("nvim").arg("--version").output().is_err() {
        eprintln!("SKIPPED neovim_shows_the_diagnostics_check_reports: nvim is not installed");
        return;
    }
    let dir = scratch("server-neovim");
    copy_fixture("fixtures/shop/openapi.yaml", &dir, "openapi.yaml");
    copy_fixture("fixtures/shop/retry-policy.yaml", &dir, "retry-policy.yaml");
    std::fs::write(dir.join("client.lua"), CLIENT).expect("written");
    let out = dir.join("diagnostics.txt");
    let run = Command::new("nvim")
        .args([
            "--headless",
            "--clean",
            "-u",
            "NONE",
            "-c",
            "luafile client.lua",
        ])
        .current_dir(&dir)
        .env("RETRYLINT_BIN", env!("CARGO_BIN_EXE_retrylint"))
        .env("RETRYLINT_FILE", dir.join("openapi.yaml"))
        .env("RETRYLINT_OUT", &out)
        .output()
        .expect("nvim runs");
    assert!(
        run.status.success(),
        "nvim: {:?}\n{}",
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
    let shown = std::fs::read_to_string(&out).expect("the diagnostics Neovim showed");

    let check = retrylint_in(&dir, &["check", "openapi.yaml", "--format", "concise"]);
    let mut expected: Vec<String> = check
        .stdout
        .lines()
        .filter_map(|line| {
            // `openapi.yaml:105:5: warning[rule] message`
            let rest = line.strip_prefix("openapi.yaml:")?;
            let (place, finding) = rest.split_once(": ")?;
            let rule = finding.split_once('[')?.1.split_once(']')?.0;
            Some(format!("{place} {rule}"))
        })
        .collect();
    expected.sort();
    assert!(!expected.is_empty(), "{}", check.stdout);
    assert_eq!(shown.lines().collect::<Vec<_>>(), expected);
}
