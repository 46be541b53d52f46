// Stagehand's cached act, driven by bench_act_speed.py over stdin/stdout, one JSON a line.
// Usage: node stagehand_cached_act.mjs <cdp ws url> <cache dir> <folder holding node_modules>
// Attaches to the Chromium the bench launched (the same tab) and replays act steps from
// the cache dir the bench pre-seeded: no model is called (a miss would fail: the model
// key is a dummy and there is no network). Each answer line: {ms, success, url, message}.
import { createInterface } from "node:readline";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [cdpUrl, cacheDir, npmDir] = process.argv.slice(2);
const entry = join(npmDir, "node_modules/@browserbasehq/stagehand/dist/esm/index.js");
const { Stagehand } = await import(pathToFileURL(entry).href);

const stagehand = new Stagehand({
  env: "LOCAL",
  localBrowserLaunchOptions: { cdpUrl },
  cacheDir,
  model: { modelName: "openai/gpt-4.1-mini", apiKey: "no-model-is-called" },
  selfHeal: false, // a failed replay is reported, never sent to a model
  verbose: 0,
  disablePino: true,
});
await stagehand.init();
const page = () => stagehand.context.activePage() ?? stagehand.context.pages()[0];
console.log(JSON.stringify({ ready: true, url: page().url() }));

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const { instruction, variables } = JSON.parse(line);
  const start = performance.now();
  let result;
  try {
    result = await stagehand.act(instruction, { variables });
  } catch (error) {
    result = { success: false, message: String(error) };
  }
  const ms = performance.now() - start;
  console.log(JSON.stringify({ ms, success: result.success, url: page().url(), message: result.message }));
}
await stagehand.close();
