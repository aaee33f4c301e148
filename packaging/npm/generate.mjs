// Writes the npm packages of the `payability` command, biome's layout
// (biomejs/biome packages/@biomejs/biome/scripts/generate-packages.mjs): the main package
// `payability` (the launcher bin/payability, every platform package as an optionalDependency)
// and the platform package of the binary given, with `os`, `cpu` and `libc` so that npm
// installs only the matching one. No package has an install script.
//
//   node packaging/npm/generate.mjs --version V --binary PATH --out DIR
//
// The binary is this machine's (its platform is detected as the launcher detects it). The main
// package carries `mcpName`, the MCP registry's proof that the listing in server.json (its
// `name`) owns it. Prints the two package directories it wrote, main first, one a line.
import * as fs from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { PLATFORMS, thisPlatform } from "../platform.mjs";

// Unscoped platform packages, `payability-<os>-<arch>[-musl]`: the `@payability` scope is an
// npm organisation we do not hold (see scripts/package). bin/payability holds the same prefix.
const PREFIX = "payability";
const REPOSITORY = "https://github.com/payability-verdict/payability-verdict";

const here = dirname(fileURLToPath(import.meta.url));
/** The MCP registry listing's name (server.json at the repository root). */
const MCP_NAME = JSON.parse(fs.readFileSync(resolve(here, "../../server.json"), "utf8")).name;
const { values } = parseArgs({
	options: { version: { type: "string" }, binary: { type: "string" }, out: { type: "string" } },
});
for (const name of ["version", "binary", "out"]) {
	if (!values[name]) {
		console.error(`generate.mjs: --${name} is required`);
		process.exit(2);
	}
}
const { version, binary, out } = values;

const common = {
	version,
	license: "MIT",
	homepage: REPOSITORY,
	repository: { type: "git", url: `git+${REPOSITORY}.git` },
	engines: { node: ">=18" },
};

function write(dir, manifest, readme) {
	fs.mkdirSync(dir, { recursive: true });
	fs.writeFileSync(resolve(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
	fs.writeFileSync(resolve(dir, "README.md"), readme);
}

const platform = thisPlatform("generate.mjs");

const mainDir = resolve(out, "payability");
write(
	mainDir,
	{
		name: "payability",
		description: "Signed, field-level payability verdicts on x402 402 challenges: the `payability` command.",
		...common,
		keywords: ["x402", "402", "payments", "verdict", "cli"],
		mcpName: MCP_NAME,
		bin: { payability: "bin/payability" },
		files: ["bin/payability", "README.md"],
		optionalDependencies: Object.fromEntries(PLATFORMS.map((p) => [`${PREFIX}-${p}`, version])),
	},
	"# payability\n\nSigned, field-level payability verdicts on x402 402 challenges. `npx payability --help`;\n" +
		`the platform packages (\`${PREFIX}-<os>-<arch>[-musl]\`) carry the binary. ${REPOSITORY}\n`,
);
fs.mkdirSync(resolve(mainDir, "bin"), { recursive: true });
fs.copyFileSync(resolve(here, "bin/payability"), resolve(mainDir, "bin/payability"));
fs.chmodSync(resolve(mainDir, "bin/payability"), 0o755);

const [os, cpu] = platform.split("-");
const name = `${PREFIX}-${platform}`;
const platformDir = resolve(out, name);
write(
	platformDir,
	{
		name,
		description: `The payability binary for ${platform}; install \`payability\`, which runs it.`,
		...common,
		os: [os],
		cpu: [cpu],
		...(os === "linux" ? { libc: [platform.endsWith("-musl") ? "musl" : "glibc"] } : {}),
		files: ["payability", "README.md"],
		preferUnplugged: true,
	},
	`# ${name}\n\nThe \`payability\` binary for ${platform}. Install \`payability\` instead. ${REPOSITORY}\n`,
);
fs.copyFileSync(binary, resolve(platformDir, "payability"));
fs.chmodSync(resolve(platformDir, "payability"), 0o755);

console.log(mainDir);
console.log(platformDir);
