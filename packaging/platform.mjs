// The platform names the packages use, `<os>-<arch>[-musl]` (npm's `process.platform` and
// `process.arch`, with `-musl` on a musl Linux): the npm platform packages
// (npm/generate.mjs) and the MCP bundles (mcp/bundle.mjs) are named by it. This machine's is
// the one a package made here is for.
import { execSync } from "node:child_process";

/** The platforms the binary builds for (the signing key file is Unix-only: no win32). */
export const PLATFORMS = ["darwin-x64", "darwin-arm64", "linux-x64", "linux-arm64", "linux-x64-musl", "linux-arm64-musl"];

/** musl rather than glibc, as the npm launcher tells (biome's test). */
function isMusl() {
	let output;
	try {
		output = execSync("ldd --version", { stdio: ["pipe", "pipe", "pipe"] });
	} catch (err) {
		output = err.stderr;
	}
	return output != null && output.indexOf("musl") > -1;
}

/** This machine's platform name; exits 1 when the packages name no such platform. */
export function thisPlatform(caller) {
	const platform = `${process.platform}-${process.arch}${process.platform === "linux" && isMusl() ? "-musl" : ""}`;
	if (!PLATFORMS.includes(platform)) {
		console.error(`${caller}: ${platform} is not a platform the packages name (${PLATFORMS.join(", ")})`);
		process.exit(1);
	}
	return platform;
}
