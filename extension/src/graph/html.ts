/**
 * The graph panel's HTML: a strict content security policy (no remote anything; the one script
 * is the bundled dist/webview/graph.js, allowed by a fresh nonce; styles inline by nonce too),
 * the toolbar, the SVG the webview draws into. Pure: unit-tested.
 */

export interface HtmlInput {
  /** webview.cspSource */
  cspSource: string;
  /** asWebviewUri of dist/webview/graph.js */
  scriptUri: string;
  nonce: string;
}

export function nonce(random: (size: number) => Uint8Array): string {
  return Buffer.from(random(18)).toString('base64').replace(/[+/=]/g, '');
}

export function contentSecurityPolicy(input: HtmlInput): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${input.nonce}'`,
    `style-src 'nonce-${input.nonce}'`,
    `img-src ${input.cspSource} data:`,
    `font-src ${input.cspSource}`,
  ].join('; ');
}

/** Styles the exported SVG keeps too (id svg-style). */
const SVG_STYLE = `
.edges path { fill: none; stroke: var(--edge, #8888); stroke-width: 1.2; }
.node rect { stroke: #0004; stroke-width: 1; }
.node text { font: 11px var(--vscode-editor-font-family, monospace); fill: #fff; pointer-events: none; }
.node .detail { fill: #ffffffb0; font-size: 10px; }
.node { cursor: pointer; }
.far .node text, .far .box-label { display: none; }
.node.kind-group rect { stroke: #fff8; stroke-dasharray: 4 2; }
.node.runs-delegated rect { stroke: #3fb950; stroke-width: 2.5; }
.node.runs-portable rect { stroke: #d29922; stroke-width: 2.5; stroke-dasharray: 5 2; }
.node.runs-missing rect { stroke: #f85149; stroke-width: 3.5; }
.node.hl rect { stroke: #ffd500; stroke-width: 3; }
.node.selected rect { stroke: #3af; stroke-width: 3; }
.box-label { font: 10px var(--vscode-font-family, sans-serif); fill: var(--vscode-foreground, #ccc); cursor: pointer; }
`;

const PAGE_STYLE = `
:root { --edge: var(--vscode-editorLineNumber-foreground, #8888); }
html, body { margin: 0; padding: 0; height: 100%; overflow: hidden; color: var(--vscode-foreground); background: var(--vscode-editor-background); font: 12px var(--vscode-font-family, sans-serif); }
#bar { display: flex; gap: 4px; align-items: center; padding: 4px 6px; border-bottom: 1px solid var(--vscode-panel-border, #8884); }
#bar button { background: var(--vscode-button-secondaryBackground); color: var(--vscode-button-secondaryForeground); border: 0; padding: 2px 7px; cursor: pointer; }
#bar input { background: var(--vscode-input-background); color: var(--vscode-input-foreground); border: 1px solid var(--vscode-input-border, #8884); padding: 2px 4px; width: 14em; }
#title { flex: 1; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; opacity: .85; }
#banner { background: var(--vscode-inputValidation-warningBackground, #6a5a00); padding: 3px 8px; }
#message { padding: 12px 18px; overflow: auto; height: calc(100% - 40px); box-sizing: border-box; }
#message li { margin: 8px 0; }
#canvas { width: 100%; height: calc(100% - 32px); display: block; user-select: none; }
#legend { white-space: nowrap; opacity: .9; }
#legend .sw { display: inline-block; width: 9px; height: 9px; margin: 0 3px 0 8px; border: 2px solid; vertical-align: -1px; }
#legend .runs-delegated { border-color: #3fb950; }
#legend .runs-portable { border-color: #d29922; border-style: dashed; }
#legend .runs-missing { border-color: #f85149; }
#card { position: fixed; max-width: 360px; background: var(--vscode-editorHoverWidget-background, #252526); border: 1px solid var(--vscode-editorHoverWidget-border, #454545); padding: 6px 8px; pointer-events: none; z-index: 2; }
#card .op { font-weight: bold; font-family: var(--vscode-editor-font-family, monospace); }
#card code { font-family: var(--vscode-editor-font-family, monospace); opacity: .85; }
#card .stack { margin: 4px 0 0; padding-left: 18px; }
`;

export function graphHtml(input: HtmlInput): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(input)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>ExportLens: Graph</title>
<style nonce="${input.nonce}">${PAGE_STYLE}</style>
<style nonce="${input.nonce}" id="svg-style">${SVG_STYLE}</style>
</head>
<body>
<div id="bar">
  <span id="title">loading…</span>
  <span id="legend" hidden></span>
  <input id="search" type="search" placeholder="search op or :line" aria-label="search op or line">
  <button id="zoom-out" title="zoom out">−</button><button id="zoom-in" title="zoom in">+</button>
  <button id="fit" title="fit the graph">fit</button>
  <button id="expand" title="expand every group">expand all</button><button id="collapse" title="collapse every group">collapse all</button>
  <button id="svg" title="save the picture as SVG">SVG</button>
</div>
<div id="banner" hidden></div>
<div id="message" hidden></div>
<svg id="canvas"><g id="viewport"></g></svg>
<div id="card" hidden></div>
<script nonce="${input.nonce}" src="${input.scriptUri}"></script>
</body>
</html>`;
}
