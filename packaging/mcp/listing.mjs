// The MCP registry listing: server.json at the repository root, checked against the registry's
// JSON Schema (server.schema.json beside this file, vendored: README.md says whence), and the
// release's listing, which adds the MCP bundles only a release has.
//
//   node packaging/mcp/listing.mjs --modules DIR --version V
//       checks server.json: the schema, `$schema` naming it, the listing's version and every
//       package's equal to V (the workspace's)
//   node packaging/mcp/listing.mjs --modules DIR --version V --bundles DIR --out FILE
//       also writes the release's listing to FILE: server.json with one `mcpb` package per
//       bundle in --bundles (its GitHub release download URL and its SHA-256), checked the same
//       and written only when both pass
//
// DIR is the node_modules of this folder's package.json (scripts/package --install-only). Prints
// one line per listing checked; exits 1 with every schema error when one fails, 2 on bad usage.
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
const LISTING = resolve(here, "../../server.json");
const SCHEMA = resolve(here, "server.schema.json");

const { values } = parseArgs({
	options: {
		modules: { type: "string" },
		version: { type: "string" },
		bundles: { type: "string" },
		out: { type: "string" },
	},
});
if (!values.modules || !values.version || Boolean(values.bundles) !== Boolean(values.out)) {
	console.error("listing.mjs: --modules and --version are required, --bundles and --out go together");
	process.exit(2);
}

const require = createRequire(join(resolve(values.modules), "listing.cjs"));
const Ajv = require("ajv").default;
const addFormats = require("ajv-formats").default;

const schema = JSON.parse(fs.readFileSync(SCHEMA, "utf8"));
// Not strict: the registry's schema carries OpenAPI's `example` and `discriminator`, which are
// annotations to draft-07 and which ajv's strict mode refuses as unknown keywords.
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const validate = ajv.compile(schema);

/** Every reason `listing` is not one the registry takes at this version; empty when it is. */
function problems(listing) {
	const found = [];
	if (!validate(listing)) {
		for (const error of validate.errors) {
			found.push(`schema: ${error.instancePath || "/"} ${error.message}`);
		}
	}
	if (listing.$schema !== schema.$id) {
		found.push(`$schema is ${listing.$schema}, not the vendored schema's $id ${schema.$id}`);
	}
	if (listing.version !== values.version) {
		found.push(`version is ${listing.version}, not the workspace's ${values.version}`);
	}
	for (const [index, pkg] of (listing.packages ?? []).entries()) {
		if (pkg.registryType !== "mcpb" && pkg.version !== values.version) {
			found.push(`packages[${index}] (${pkg.registryType}) version is ${pkg.version}, not ${values.version}`);
		}
	}
	return found;
}

/** Checks `listing` (read from `where`), printing its verdict; false when it fails. */
function check(listing, where) {
	const found = problems(listing);
	if (found.length === 0) {
		console.log(`listing.mjs: ${where} is a valid ${schema.$id} listing of version ${values.version}`);
		return true;
	}
	console.error(`listing.mjs: ${where} is not a listing the registry takes:`);
	for (const problem of found) console.error(`  ${problem}`);
	return false;
}

/** The release's listing: one mcpb package per bundle, at its release download URL. */
function releaseListing(listing, bundlesDir) {
	const bundles = fs
		.readdirSync(bundlesDir)
		.filter((name) => name.endsWith(".mcpb"))
		.sort();
	if (bundles.length === 0) {
		console.error(`listing.mjs: no .mcpb bundle in ${bundlesDir}`);
		process.exit(1);
	}
	const release = `${listing.repository.url}/releases/download/v${values.version}`;
	const mcpb = bundles.map((name) => ({
		registryType: "mcpb",
		identifier: `${release}/${name}`,
		fileSha256: createHash("sha256")
			.update(fs.readFileSync(join(bundlesDir, name)))
			.digest("hex"),
		transport: { type: "stdio" },
	}));
	return { ...listing, packages: [...listing.packages, ...mcpb] };
}

const listing = JSON.parse(fs.readFileSync(LISTING, "utf8"));
let passed = check(listing, basename(LISTING));
if (values.bundles) {
	const released = releaseListing(listing, values.bundles);
	if (check(released, values.out) && passed) {
		fs.writeFileSync(values.out, `${JSON.stringify(released, null, 2)}\n`);
	} else {
		passed = false;
	}
}
process.exit(passed ? 0 : 1);
