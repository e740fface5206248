// The retrylint extension: starts `retrylint server` for YAML and JSON files and lets the
// language client do the rest (diagnostics, hovers, code actions). The settings are handed
// to the server as its initializationOptions; changing one restarts it.
'use strict';

const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

/** The server's initializationOptions, from the `retrylint.*` settings. */
function initializationOptions(settings) {
  const options = {};
  const policy = settings.get('policy', []);
  if (policy.length > 0) {
    options.policy = policy;
  }
  const root = settings.get('root', '');
  if (root) {
    options.root = root;
  }
  const maxFileSize = settings.get('maxFileSize', 0);
  if (maxFileSize > 0) {
    options.maxFileSize = maxFileSize;
  }
  return options;
}

function start() {
  const settings = vscode.workspace.getConfiguration('retrylint');
  const command = settings.get('path', 'retrylint') || 'retrylint';
  const serverOptions = { command, args: ['server'] };
  const clientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'yaml' },
      { scheme: 'file', language: 'json' },
      { scheme: 'file', language: 'jsonc' },
    ],
    initializationOptions: initializationOptions(settings),
    synchronize: {
      // A $ref'd file, the policy or a layer file changed on disk re-checks what reads it.
      fileEvents: vscode.workspace.createFileSystemWatcher('**/*.{yaml,yml,json}'),
    },
  };
  client = new LanguageClient('retrylint', 'retrylint', serverOptions, clientOptions);
  return client.start();
}

async function stop() {
  if (client) {
    const running = client;
    client = undefined;
    await running.stop();
  }
}

function activate(context) {
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration('retrylint')) {
        await stop();
        await start();
      }
    }),
  );
  return start();
}

function deactivate() {
  return stop();
}

module.exports = { activate, deactivate, initializationOptions };
