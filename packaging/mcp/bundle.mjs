// Writes the MCP bundle of the `payability` binary given: `payability-<version>-<platform>.mcpb`,
// the bundle format's manifest.json (manifest_version 0.3, a `binary` server run as
// `server/payability mcp`, the tools with their descriptions) beside the binary, packed by the
// format's own CLI (`mcpb pack`, which validates the manifest and keeps the binary executable).
//
//   node packaging/mcp/bundle.mjs --version V --binary PATH --mcpb CLI --out DIR
//
// The tools are what the binary itself lists: it is started as `payability mcp` with a home
// of its own (removed after) and asked `tools/list` after the MCP handshake, so the manifest
// cannot drift from the server it names. The platform is this machine's (../platform.mjs), as
// for the npm platform package. Prints the bundle's path.
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { thisPlatform } from "../platform.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
	options: {
		version: { type: "string" },
		binary: { type: "string" },
		mcpb: { type: "string" },
		out: { type: "string" },
	},
});
for (const name of ["version", "binary", "mcpb", "out"]) {
	if (!values[name]) {
		console.error(`bundle.mjs: --${name} is required`);
		process.exit(2);
	}
}
const { version, binary, mcpb, out } = values;
const listing = JSON.parse(fs.readFileSync(resolve(here, "../../server.json"), "utf8"));

/** The tools `binary mcp` lists, name and description, asked over stdio as a client would. */
function listedTools() {
	const home = fs.mkdtempSync(join(tmpdir(), "payability-bundle-home-"));
	try {
		const request = (id, method, params) => JSON.stringify({ jsonrpc: "2.0", id, method, params });
		const input = [
			request(1, "initialize", {
				protocolVersion: "2025-11-25",
				capabilities: {},
				clientInfo: { name: "payability-bundle", version },
			}),
			JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
			request(2, "tools/list", {}),
		].join("\n");
		const ran = spawnSync(binary, ["mcp"], {
			input: `${input}\n`,
			env: { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: home },
			encoding: "utf8",
			timeout: 60_000,
		});
		if (ran.status !== 0) {
			console.error(`bundle.mjs: ${binary} mcp ended with ${ran.status ?? ran.signal}: ${ran.stderr}`);
			process.exit(1);
		}
		const answers = ran.stdout.trim().split("\n").map((line) => JSON.parse(line));
		const tools = answers.find((answer) => answer.id === 2)?.result?.tools;
		if (!Array.isArray(tools) || tools.length === 0) {
			console.error(`bundle.mjs: ${binary} mcp listed no tools: ${ran.stdout}`);
			process.exit(1);
		}
		return tools.map(({ name, description }) => ({ name, description }));
	} finally {
		fs.rmSync(home, { recursive: true, force: true });
	}
}

const platform = thisPlatform("bundle.mjs");
const manifest = {
	manifest_version: "0.3",
	name: "payability",
	display_name: listing.title,
	version,
	description: listing.description,
	long_description:
		"`payability mcp` on your own machine: check and memo fetch an x402 endpoint from here, " +
		"as an unauthenticated stranger, and return a report signed with this machine's key " +
		"(generated on first use). Every tool is free here.",
	author: { name: "payability-verdict", url: listing.repository.url },
	repository: { type: "git", url: `${listing.repository.url}.git` },
	homepage: listing.websiteUrl,
	documentation: `${listing.repository.url}/blob/main/docs/mcp.md`,
	support: `${listing.repository.url}/issues`,
	license: "MIT",
	keywords: ["x402", "402", "payments", "verdict"],
	server: {
		type: "binary",
		entry_point: "server/payability",
		mcp_config: { command: "${__dirname}/server/payability", args: ["mcp"], env: {} },
	},
	tools: listedTools(),
	compatibility: { platforms: [process.platform] },
};

const stage = fs.mkdtempSync(join(tmpdir(), "payability-bundle-"));
try {
	fs.mkdirSync(join(stage, "server"));
	fs.copyFileSync(binary, join(stage, "server/payability"));
	fs.chmodSync(join(stage, "server/payability"), 0o755);
	fs.writeFileSync(join(stage, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
	fs.mkdirSync(out, { recursive: true });
	const bundle = resolve(out, `payability-${version}-${platform}.mcpb`);
	execFileSync(mcpb, ["pack", stage, bundle], { stdio: ["ignore", "ignore", "inherit"] });
	console.log(bundle);
} finally {
	fs.rmSync(stage, { recursive: true, force: true });
}
