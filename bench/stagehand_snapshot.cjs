// Stagehand v3's accessibility-tree snapshot of a page in an already running Chromium, for
// bench_snapshot.py to compare with ours on the same tab.
//
// Usage: node bench/stagehand_snapshot.cjs WS_URL   (STAGEHAND_NPM: the folder holding
// node_modules/@browserbasehq/stagehand, 3.7.3). Reads one JSON request per stdin line,
// {"url": "<page url>", "runs": N}, and answers one JSON line per request:
// {"seconds": [..N], "tree": "<formattedTree of the last run>"}.
const path = require("node:path");
const readline = require("node:readline");
const { createRequire } = require("node:module");

const npm = process.env.STAGEHAND_NPM || path.join(__dirname, ".npm");
const { Stagehand } = createRequire(path.join(npm, "package.json"))("@browserbasehq/stagehand");

async function main() {
  const stagehand = new Stagehand({
    env: "LOCAL",
    localBrowserLaunchOptions: { cdpUrl: process.argv[2] },
    verbose: 0,
    disablePino: true,
    logger: () => {},
  });
  await stagehand.init();
  const lines = readline.createInterface({ input: process.stdin });
  for await (const line of lines) {
    const { url, runs } = JSON.parse(line);
    const page = stagehand.context.pages().find((p) => p.url() === url);
    if (!page) {
      process.stdout.write(JSON.stringify({ error: `no page at ${url}` }) + "\n");
      continue;
    }
    const seconds = [];
    let tree = "";
    for (let i = 0; i < runs; i++) {
      const start = process.hrtime.bigint();
      tree = (await page.snapshot()).formattedTree;
      seconds.push(Number(process.hrtime.bigint() - start) / 1e9);
    }
    process.stdout.write(JSON.stringify({ seconds, tree }) + "\n");
  }
  process.exit(0);  // leave the browser as found: it belongs to the bench
}

main().catch((error) => {
  process.stderr.write(`${error.stack || error}\n`);
  process.exit(1);
});
