//! Deploy parity: `template.yaml` against the workspace. Each test fails when something
//! exists on one side only: a function package without a template function (or the
//! reverse), a route without an API event, a store table without a DynamoDB table, or a
//! function environment that is not exactly what the settings table
//! (`payability_runtime::settings::TABLE`) says that function reads.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use std::time::Duration;

use payability_core::op::PaidOp;
use payability_runtime::api::{
    API_GATEWAY_REQUEST_QUOTA_BYTES, MAX_GET_RESOURCE_URL_BYTES, PAID_REQUEST_BUDGET_BYTES,
};
use payability_runtime::budget::{
    ANSWER_MARGIN, EARLY_FETCH_LEASE_BOUND, RECORD_BOUND, SIDE_LOOKUP_GRACE, fetch_bound,
    paid_deadline,
};
use payability_runtime::payment::facilitator;
use payability_runtime::routes::Route;
use payability_runtime::settings::{self, Deployed, Reader};
use payability_runtime::store::dynamodb::{KEY, TABLE_VARIABLES};
use payability_runtime::telemetry::emf;
use yaml_serde::{Mapping, Value};

/// API Gateway's integration timeout: every function behind the API must finish first.
const API_GATEWAY_TIMEOUT_S: u64 = 30;
/// API Gateway's HTTP API quota on one request: request line plus header values, in bytes
/// (it cannot be raised; official x402 clients echo our 402 into `PAYMENT-SIGNATURE`).
const HTTP_API_REQUEST_QUOTA_BYTES: usize = 10_240;
/// Lambda's own limit, for a function no API waits on (the signing-key custom resource).
const LAMBDA_TIMEOUT_S: u64 = 900;

/// The function answering every other `POST` (`Route::ALL` has no entry for it).
const NOT_COVERED: &str = "not-covered";

/// Variable names that would carry a secret value: only `_SECRET_ARN` variables may have
/// them, and those hold a reference to a secret, never the value.
const SECRET_WORDS: [&str; 5] = ["TOKEN", "SECRET", "SEED", "PASSWORD", "PRIVATE_KEY"];

// ------------------------------------------------------------------------ workspace

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

fn read(relative: &str) -> String {
    let path = workspace_root().join(relative);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn cargo_toml(relative: &str) -> toml::Table {
    read(relative).parse().unwrap_or_else(|e| panic!("{relative} is not TOML: {e}"))
}

/// Each `functions/<dir>/Cargo.toml`: `(dir, package name, binary names)`.
fn function_packages() -> Vec<(String, String, Vec<String>)> {
    let mut packages = Vec::new();
    let dir = workspace_root().join("functions");
    for entry in fs::read_dir(&dir).expect("functions/ is a directory") {
        let entry = entry.expect("functions/ is readable");
        if !entry.path().join("Cargo.toml").is_file() {
            continue;
        }
        let name = entry.file_name().into_string().expect("a UTF-8 folder name");
        let manifest = cargo_toml(&format!("functions/{name}/Cargo.toml"));
        let package = manifest["package"]["name"].as_str().expect("a package name").to_owned();
        let binaries = match manifest.get("bin").and_then(|b| b.as_array()) {
            Some(bins) => bins
                .iter()
                .map(|b| b["name"].as_str().expect("a [[bin]] name").to_owned())
                .collect(),
            None => vec![package.clone()],
        };
        packages.push((name, package, binaries));
    }
    packages.sort();
    packages
}

/// The variables the settings table says the template sets on the function `binary`: those
/// it reads that are deployed.
fn table_environment(binary: &str) -> BTreeSet<String> {
    let reader = Reader::of_function(binary);
    settings::TABLE
        .iter()
        .filter(|s| s.deployed == Deployed::Template)
        .filter(|s| reader.is_some_and(|reader| s.read_by(reader)))
        .map(|s| s.name.to_owned())
        .collect()
}

/// Every `(METHOD, path, function binary)` the code serves through API Gateway: each method
/// of each route at each of its paths (its own and the public one under `/toll/payability`).
fn code_routes() -> BTreeSet<(String, String, String)> {
    let mut routes: BTreeSet<_> = Route::ALL
        .into_iter()
        .flat_map(|route| {
            route.paths().into_iter().flat_map(move |path| {
                route.methods().iter().map(move |method| {
                    (method.as_str().to_owned(), path.clone(), route.function().to_owned())
                })
            })
        })
        .collect();
    routes.insert(("POST".into(), "/{proxy+}".into(), NOT_COVERED.into()));
    routes
}

// ------------------------------------------------------------------------ template

fn template() -> Value {
    yaml_serde::from_str(&read("template.yaml")).expect("template.yaml is YAML")
}

fn resources(template: &Value) -> &Mapping {
    template["Resources"].as_mapping().expect("the template has Resources")
}

fn resources_of_type<'t>(template: &'t Value, kind: &str) -> Vec<(&'t str, &'t Value)> {
    resources(template)
        .iter()
        .filter(|(_, resource)| literal(&resource["Type"]) == Some(kind))
        .map(|(id, resource)| (id.as_str().expect("a string logical id"), resource))
        .collect()
}

/// Template functions by binary name (`Metadata.BuildProperties.Binary`).
fn functions(template: &Value) -> BTreeMap<&str, (&str, &Value)> {
    let mut by_binary = BTreeMap::new();
    for (id, function) in resources_of_type(template, "AWS::Serverless::Function") {
        let binary = literal(&function["Metadata"]["BuildProperties"]["Binary"])
            .unwrap_or_else(|| panic!("{id} has no Metadata.BuildProperties.Binary"));
        assert!(by_binary.insert(binary, (id, function)).is_none(), "two functions build {binary}");
    }
    by_binary
}

/// A function property, else the same property under `Globals.Function`.
fn function_property<'t>(template: &'t Value, function: &'t Value, name: &str) -> &'t Value {
    match function["Properties"].get(name) {
        Some(value) => value,
        None => &template["Globals"]["Function"][name],
    }
}

/// The value under a short-form CloudFormation tag (`!Ref`, `!If`, ...) or its long form.
fn intrinsic<'v>(value: &'v Value, tag: &str) -> Option<&'v Value> {
    match value {
        Value::Tagged(tagged) if tagged.tag == tag => Some(&tagged.value),
        Value::Mapping(map) if map.len() == 1 => {
            let long = if tag == "Ref" { "Ref".to_owned() } else { format!("Fn::{tag}") };
            map.get(long.as_str())
        }
        _ => None,
    }
}

/// A plain string scalar (`as_str` would also see through a tag such as `!Ref`).
fn literal(value: &Value) -> Option<&str> {
    match value {
        Value::String(text) => Some(text),
        _ => None,
    }
}

/// The logical id or parameter a `!Ref` names.
fn ref_target(value: &Value) -> Option<&str> {
    intrinsic(value, "Ref")?.as_str()
}

/// `(name, value)` of every environment variable of every function, by binary.
fn environments(template: &Value) -> BTreeMap<&str, BTreeMap<&str, &Value>> {
    functions(template)
        .into_iter()
        .map(|(binary, (_, function))| {
            let variables = function["Properties"]["Environment"]["Variables"]
                .as_mapping()
                .map(|vars| {
                    vars.iter().map(|(k, v)| (k.as_str().expect("a string name"), v)).collect()
                })
                .unwrap_or_default();
            (binary, variables)
        })
        .collect()
}

/// Every environment variable name the template sets, on any function.
fn template_variables(template: &Value) -> BTreeSet<String> {
    environments(template).values().flat_map(|vars| vars.keys().map(|k| k.to_string())).collect()
}

fn sorted<T: Ord + Clone>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    items.into_iter().collect()
}

/// Fails naming what is on one side only; each side is `(its name, its set)`.
fn assert_same<T: Ord + std::fmt::Debug>(
    what: &str,
    (left_name, left): (&str, &BTreeSet<T>),
    (right_name, right): (&str, &BTreeSet<T>),
) {
    let left_only: Vec<_> = left.difference(right).collect();
    let right_only: Vec<_> = right.difference(left).collect();
    assert!(
        left_only.is_empty() && right_only.is_empty(),
        "{what}: only in {left_name}: {left_only:?}; only in {right_name}: {right_only:?}"
    );
}

// ------------------------------------------------------------------------ tests

#[test]
fn function_packages_are_workspace_members_and_template_functions() {
    let packages = function_packages();
    let manifest = cargo_toml("Cargo.toml");
    let members: BTreeSet<String> = manifest["workspace"]["members"]
        .as_array()
        .expect("workspace members")
        .iter()
        .filter_map(|m| m.as_str()?.strip_prefix("functions/").map(str::to_owned))
        .collect();
    assert_same(
        "function packages",
        ("functions/*/Cargo.toml", &sorted(packages.iter().map(|(dir, _, _)| dir.clone()))),
        ("the workspace members", &members),
    );
    let binaries = sorted(packages.iter().flat_map(|(_, _, bins)| bins.iter().cloned()));
    let template = template();
    let template_binaries = sorted(functions(&template).keys().map(|b| b.to_string()));
    assert_same(
        "function binaries",
        ("the function packages", &binaries),
        ("template.yaml (Metadata.BuildProperties.Binary)", &template_binaries),
    );
    for (_, package, bins) in &packages {
        assert_eq!(
            bins,
            std::slice::from_ref(package),
            "{package}: one binary named after its package"
        );
    }
}

#[test]
fn every_function_is_an_arm64_cargo_lambda_binary_within_its_timeout_limit() {
    let template = template();
    let expected: [(&str, Value); 4] = [
        ("Runtime", Value::from("provided.al2023")),
        ("Handler", Value::from("bootstrap")),
        ("Architectures", Value::Sequence(vec![Value::from("arm64")])),
        ("CodeUri", Value::from(".")),
    ];
    for (binary, (id, function)) in functions(&template) {
        assert_eq!(
            literal(&function["Metadata"]["BuildMethod"]),
            Some("rust-cargolambda"),
            "{id} ({binary}): BuildMethod"
        );
        for (property, value) in &expected {
            assert_eq!(
                function_property(&template, function, property),
                value,
                "{id} ({binary}): {property}"
            );
        }
        let timeout = function_property(&template, function, "Timeout")
            .as_u64()
            .unwrap_or_else(|| panic!("{id} ({binary}): Timeout is a number of seconds"));
        if function["Properties"]["Events"].is_null() {
            assert!(timeout <= LAMBDA_TIMEOUT_S, "{id} ({binary}): Timeout {timeout} s");
        } else {
            assert!(
                timeout < API_GATEWAY_TIMEOUT_S,
                "{id} ({binary}): Timeout {timeout} s, behind the API it must be below \
                 {API_GATEWAY_TIMEOUT_S} s"
            );
        }
        assert!(
            function_property(&template, function, "VpcConfig").is_null(),
            "{id} ({binary}): functions run outside any VPC"
        );
    }
}

#[test]
fn paid_request_budgets_fit_their_function_timeouts() {
    let template = template();
    let functions = functions(&template);
    for route in PaidOp::ALL {
        let (id, function) = functions[route.as_str()];
        let timeout = function_property(&template, function, "Timeout").as_u64().unwrap();
        let deadline = paid_deadline(route);
        assert!(
            deadline + ANSWER_MARGIN <= Duration::from_secs(timeout),
            "{id}: a {deadline:?} deadline and {ANSWER_MARGIN:?} to answer exceed Timeout {timeout} s"
        );
        // The longest path: a whole verify before settlement, then the settlement, the
        // fetches, the side lookups' grace and the writes, all inside the deadline.
        let longest = facilitator::REQUEST_TIMEOUT
            + facilitator::SETTLE_TIMEOUT
            + fetch_bound(route)
            + SIDE_LOOKUP_GRACE
            + RECORD_BOUND;
        assert!(longest <= deadline, "{id}: steps of {longest:?} exceed the {deadline:?} deadline");
        // The fetch alongside the settlement (after at most the lease's wait) ends no later
        // than the serial path it replaces: the reserve above covers it.
        let alongside = facilitator::REQUEST_TIMEOUT
            + facilitator::SETTLE_TIMEOUT.max(EARLY_FETCH_LEASE_BOUND + fetch_bound(route))
            + SIDE_LOOKUP_GRACE
            + RECORD_BOUND;
        assert!(alongside <= longest, "{id}: the early path ({alongside:?}) outlasts {longest:?}");
    }
}

#[test]
fn the_paid_request_budget_leaves_a_kilobyte_of_the_http_api_request_quota() {
    let template = template();
    let apis = resources_of_type(&template, "AWS::Serverless::HttpApi");
    assert_eq!(
        apis.len(),
        1,
        "one HTTP API, whose request quota is {HTTP_API_REQUEST_QUOTA_BYTES}"
    );
    assert!(resources_of_type(&template, "AWS::Serverless::Api").is_empty(), "no REST API");
    assert_eq!(API_GATEWAY_REQUEST_QUOTA_BYTES, HTTP_API_REQUEST_QUOTA_BYTES);
    assert_eq!(PAID_REQUEST_BUDGET_BYTES, HTTP_API_REQUEST_QUOTA_BYTES - 1_024);
    // A paid GET carries its URL twice (request line; base64 in PAYMENT-SIGNATURE): 7/3 bytes
    // of the quota per byte, the rest measured by shared/cli/tests/gateway_quota.rs.
    const { assert!(MAX_GET_RESOURCE_URL_BYTES * 7 / 3 < PAID_REQUEST_BUDGET_BYTES) };
}

#[test]
fn api_events_match_the_routes() {
    let template = template();
    let mut events = BTreeSet::new();
    for (binary, (id, function)) in functions(&template) {
        let Some(function_events) = function["Properties"]["Events"].as_mapping() else {
            continue;
        };
        for (name, event) in function_events {
            let name = name.as_str().unwrap_or("?");
            assert_eq!(event["Type"].as_str(), Some("HttpApi"), "{id}.{name}: an HttpApi event");
            let properties = &event["Properties"];
            assert_eq!(
                ref_target(&properties["ApiId"]),
                Some("PayabilityApi"),
                "{id}.{name}: ApiId is !Ref PayabilityApi"
            );
            let method = literal(&properties["Method"]).expect("a method").to_ascii_uppercase();
            let path = literal(&properties["Path"]).expect("a path").to_owned();
            assert!(events.insert((method, path, binary.to_owned())), "{id}.{name}: twice");
        }
    }
    assert_same(
        "(method, path, function) routes",
        ("Route::ALL and the catch-all", &code_routes()),
        ("template.yaml's HttpApi events", &events),
    );
}

#[test]
fn every_path_of_every_route_is_served_and_routed_back_to_it() {
    let template = template();
    let served: BTreeSet<String> = functions(&template)
        .values()
        .filter_map(|(_, function)| function["Properties"]["Events"].as_mapping())
        .flat_map(|events| events.values())
        .filter_map(|event| literal(&event["Properties"]["Path"]).map(str::to_owned))
        .collect();
    for route in Route::ALL {
        for path in route.paths() {
            assert!(served.contains(&path), "{path} ({}) has no HttpApi event", route.name());
            assert_eq!(Route::of_path(&path), Some(route), "{path} routes back to its route");
        }
    }
    let functions = functions(&template);
    for route in Route::ALL {
        assert!(
            functions.contains_key(route.function()),
            "{}: no template function builds {}",
            route.name(),
            route.function()
        );
    }
}

#[test]
fn watch_router_matches_the_routes() {
    let manifest = cargo_toml("Cargo.toml");
    let router: BTreeSet<(String, String)> =
        manifest["workspace"]["metadata"]["lambda"]["watch"]["router"]
            .as_table()
            .expect("[workspace.metadata.lambda.watch.router]")
            .iter()
            .map(|(path, binary)| (path.clone(), binary.as_str().expect("a binary").to_owned()))
            .collect();
    let mut expected: BTreeSet<(String, String)> = Route::ALL
        .iter()
        .flat_map(|r| r.paths().map(|path| (path, r.function().to_owned())))
        .collect();
    expected.insert(("/{*path}".into(), NOT_COVERED.into()));
    assert_same(
        "(path, binary) routes",
        ("Route::ALL and the catch-all", &expected),
        ("[workspace.metadata.lambda.watch.router]", &router),
    );
}

#[test]
fn tables_match_the_store_tables() {
    let template = template();
    let code = sorted(TABLE_VARIABLES.iter().map(|(name, _)| name.to_string()));
    let template_tables = sorted(
        template_variables(&template).into_iter().filter(|n| n.starts_with("PAYABILITY_TABLE_")),
    );
    assert_same(
        "PAYABILITY_TABLE_* variables",
        ("TABLE_VARIABLES", &code),
        ("template.yaml's environments", &template_tables),
    );

    let environments = environments(&template);
    let mut table_of_variable: BTreeMap<&str, &str> = BTreeMap::new();
    for (variable, ttl) in TABLE_VARIABLES {
        for (binary, variables) in &environments {
            let Some(value) = variables.get(variable) else { continue };
            let table = ref_target(value)
                .unwrap_or_else(|| panic!("{binary}: {variable} is !Ref of a table"));
            let first = *table_of_variable.entry(variable).or_insert(table);
            assert_eq!(table, first, "{binary}: {variable} names the same table everywhere");
        }
        let table = table_of_variable[variable];
        let resource = &template["Resources"][table];
        assert_eq!(resource["Type"].as_str(), Some("AWS::DynamoDB::Table"), "{variable}: {table}");
        let properties = &resource["Properties"];
        assert_eq!(
            properties["KeySchema"],
            yaml_serde::from_str::<Value>(&format!("[{{AttributeName: {KEY}, KeyType: HASH}}]"))
                .unwrap(),
            "{table}: KeySchema is exactly {KEY} HASH"
        );
        assert_eq!(
            properties["AttributeDefinitions"],
            yaml_serde::from_str::<Value>(&format!("[{{AttributeName: {KEY}, AttributeType: S}}]"))
                .unwrap(),
            "{table}: {KEY} is a string and the only attribute definition"
        );
        assert_eq!(properties["BillingMode"].as_str(), Some("PAY_PER_REQUEST"), "{table}");
        let spec = &properties["TimeToLiveSpecification"];
        match ttl {
            Some(attribute) => {
                assert_eq!(spec["AttributeName"].as_str(), Some(attribute), "{table}: TTL");
                assert_eq!(spec["Enabled"].as_bool(), Some(true), "{table}: TTL enabled");
            }
            None => assert!(spec.is_null(), "{table}: the store sets no TTL here"),
        }
    }
    let referenced = sorted(table_of_variable.values().map(|t| t.to_string()));
    assert_eq!(referenced.len(), TABLE_VARIABLES.len(), "each variable names its own table");
    let declared = sorted(
        resources_of_type(&template, "AWS::DynamoDB::Table")
            .into_iter()
            .map(|(id, _)| id.to_owned()),
    );
    assert_same(
        "DynamoDB tables",
        ("the tables a variable names", &referenced),
        ("the AWS::DynamoDB::Table resources", &declared),
    );
}

#[test]
fn each_function_environment_is_exactly_what_the_settings_table_says_it_reads() {
    let template = template();
    assert!(
        template["Globals"]["Function"]["Environment"].is_null(),
        "per-function environments only: the signing-key function must not depend on its own \
         custom resource"
    );
    let functions = functions(&template);
    for reader in Reader::ALL {
        if let Some(binary) = reader.function() {
            assert!(functions.contains_key(binary), "{reader:?}: no template function {binary}");
        }
    }
    for (binary, variables) in environments(&template) {
        let set = sorted(variables.keys().map(|name| name.to_string()));
        assert_same(
            &format!("{binary}'s environment"),
            ("the settings table", &table_environment(binary)),
            ("template.yaml", &set),
        );
    }
    // Every deployed variable is set on some function.
    let set = template_variables(&template);
    for setting in settings::TABLE.iter().filter(|s| s.deployed == Deployed::Template) {
        assert!(set.contains(setting.name), "{}: deployed, but set on no function", setting.name);
    }
}

#[test]
fn template_never_sets_local_only_variables() {
    let template = template();
    let private = settings::ALLOW_PRIVATE_TARGETS.about;
    assert_eq!(private.name, "PAYABILITY_ALLOW_PRIVATE_TARGETS");
    assert!(matches!(private.deployed, Deployed::Never(_)), "the table keeps it local");
    for (binary, variables) in environments(&template) {
        assert!(
            !variables.contains_key("PAYABILITY_ALLOW_PRIVATE_TARGETS"),
            "{binary}: PAYABILITY_ALLOW_PRIVATE_TARGETS must never be set on a deployed service"
        );
        for setting in settings::TABLE {
            if let Deployed::Never(reason) = setting.deployed {
                let name = setting.name;
                assert!(!variables.contains_key(name), "{binary} sets {name} ({reason})");
            }
        }
    }
}

#[test]
fn secrets_are_referenced_never_inlined() {
    let template = template();
    let secret_arn_parameters: BTreeSet<&str> = template["Parameters"]
        .as_mapping()
        .expect("Parameters")
        .keys()
        .filter_map(Value::as_str)
        .filter(|p| p.ends_with("SecretArn"))
        .collect();
    let is_secret_resource = |id: &str| {
        literal(&template["Resources"][id]["Type"]) == Some("AWS::SecretsManager::Secret")
    };
    // `!Ref Secret`, `!Ref XSecretArn`, or `!If [cond, one of those, one of those]`.
    let secret_reference = |value: &Value| -> bool {
        let plain = |v: &Value| {
            ref_target(v)
                .is_some_and(|t| is_secret_resource(t) || secret_arn_parameters.contains(t))
        };
        plain(value)
            || intrinsic(value, "If").and_then(Value::as_sequence).is_some_and(|branches| {
                branches.len() == 3 && plain(&branches[1]) && plain(&branches[2])
            })
    };
    let mut secret_variables = BTreeSet::new();
    for (binary, variables) in environments(&template) {
        for (name, value) in variables {
            for text in string_leaves(value) {
                assert!(!looks_like_secret(text), "{binary}: {name} holds a secret-like literal");
            }
            if SECRET_WORDS.iter().any(|word| name.contains(word)) {
                assert!(name.ends_with("_SECRET_ARN"), "{binary}: {name} would carry a secret");
                assert!(
                    secret_reference(value),
                    "{binary}: {name} is !Ref or !If of a Secrets Manager secret or ARN parameter"
                );
                secret_variables.insert(name);
            }
        }
    }
    assert_same(
        "variables naming a secret",
        (
            "the expected",
            &sorted(["PAYABILITY_HOUSE_TOKEN_SECRET_ARN", "PAYABILITY_SIGNING_KEY_SECRET_ARN"]),
        ),
        ("template.yaml's environments", &secret_variables),
    );
}

/// The literal strings of a value, in intrinsic functions too, leaving out the logical
/// names and condition names they refer to (`!Ref X`, `!GetAtt X.Y`, `!If [C, ...]`).
fn string_leaves(value: &Value) -> Vec<&str> {
    match value {
        Value::String(text) => vec![text],
        Value::Tagged(tagged) if tagged.tag == "Ref" || tagged.tag == "GetAtt" => Vec::new(),
        Value::Tagged(tagged) if tagged.tag == "If" => match tagged.value.as_sequence() {
            Some(branches) => branches.iter().skip(1).flat_map(string_leaves).collect(),
            None => Vec::new(),
        },
        Value::Tagged(tagged) => string_leaves(&tagged.value),
        Value::Sequence(items) => items.iter().flat_map(string_leaves).collect(),
        Value::Mapping(map) => map.values().flat_map(string_leaves).collect(),
        _ => Vec::new(),
    }
}

/// A literal long enough and plain enough to be a key or token.
fn looks_like_secret(text: &str) -> bool {
    text.len() >= 16 && text.chars().all(|c| c.is_ascii_alphanumeric() || "+/=_-".contains(c))
}

// ------------------------------------------------------------------------ alarms and dashboard

/// One alarm metric: `(namespace, metric name, dimensions)`.
type AlarmMetric<'v> = (&'v str, &'v str, BTreeMap<&'v str, &'v Value>);

/// The metric a `Namespace`/`MetricName`/`Dimensions` mapping names, if it names one.
fn named_metric(metric: &Value) -> Option<AlarmMetric<'_>> {
    let namespace = literal(&metric["Namespace"])?;
    let name = literal(&metric["MetricName"]).expect("a MetricName");
    let dimensions = metric["Dimensions"]
        .as_sequence()
        .into_iter()
        .flatten()
        .map(|d| (literal(&d["Name"]).expect("a dimension name"), &d["Value"]))
        .collect();
    Some((namespace, name, dimensions))
}

/// Every metric an alarm reads: its top-level metric or each `Metrics[].MetricStat.Metric`
/// of a metric-math alarm.
fn alarm_metrics(alarm: &Value) -> Vec<AlarmMetric<'_>> {
    let properties = &alarm["Properties"];
    let mut metrics: Vec<_> = named_metric(properties).into_iter().collect();
    for query in properties["Metrics"].as_sequence().into_iter().flatten() {
        metrics.extend(named_metric(&query["MetricStat"]["Metric"]));
    }
    metrics
}

fn alarms(template: &Value) -> Vec<(&str, &Value)> {
    resources_of_type(template, "AWS::CloudWatch::Alarm")
}

/// The alarms reading `namespace`/`metric` with dimension `dimension` = `!Ref target`.
fn alarms_on<'t>(
    template: &'t Value,
    namespace: &str,
    metric: &str,
    dimension: &str,
    target: &str,
) -> Vec<(&'t str, &'t Value)> {
    alarms(template)
        .into_iter()
        .filter(|(_, alarm)| {
            alarm_metrics(alarm).iter().any(|(ns, name, dims)| {
                *ns == namespace
                    && *name == metric
                    && dims.get(dimension).and_then(|v| ref_target(v)) == Some(target)
            })
        })
        .collect()
}

/// A metric name of the code's EMF list.
fn emitted(name: &str) -> bool {
    emf::METRICS.iter().any(|(metric, _)| *metric == name)
}

/// A `Route` dimension value the EMF lines carry.
fn route_dimension(value: &str) -> bool {
    value == "none" || Route::ALL.iter().any(|route| route.name() == value)
}

#[test]
fn the_daily_free_use_alarm_weighs_the_paid_verdicts_of_every_paid_route() {
    let template = template();
    let alarm = &resources(&template)["FreeUseDailyRatioAlarm"];
    let paid_routes: BTreeSet<&str> = alarm_metrics(alarm)
        .into_iter()
        .filter(|(namespace, name, _)| *namespace == "Payability" && *name == "PaidVerdicts")
        .map(|(_, _, dimensions)| literal(dimensions["Route"]).expect("a literal route"))
        .collect();
    let expected: BTreeSet<&str> = PaidOp::ALL.into_iter().map(PaidOp::as_str).collect();
    assert_eq!(paid_routes, expected, "FreeUseDailyRatioAlarm's PaidVerdicts metrics");
    let expression = alarm["Properties"]["Metrics"][0]["Expression"].as_str().unwrap();
    for op in PaidOp::ALL {
        assert!(
            expression.contains(op.as_str()),
            "the ratio's expression adds {op:?}: {expression}"
        );
    }
}

#[test]
fn every_function_has_an_errors_and_a_throttles_alarm() {
    let template = template();
    for (binary, (id, _)) in functions(&template) {
        for metric in ["Errors", "Throttles"] {
            let found = alarms_on(&template, "AWS/Lambda", metric, "FunctionName", id);
            assert_eq!(found.len(), 1, "{binary} ({id}): one AWS/Lambda {metric} alarm");
        }
    }
}

#[test]
fn paid_functions_alarm_on_p99_duration_over_80_percent_of_their_timeout() {
    let template = template();
    let functions = functions(&template);
    let paid: BTreeSet<&str> =
        Route::ALL.iter().filter(|r| r.paid().is_some()).map(|r| r.function()).collect();
    assert!(!paid.is_empty());
    for binary in paid {
        let (id, function) = functions[binary];
        let timeout_s = function_property(&template, function, "Timeout").as_u64().expect("s");
        let found = alarms_on(&template, "AWS/Lambda", "Duration", "FunctionName", id);
        assert_eq!(found.len(), 1, "{binary}: one Duration alarm");
        let properties = &found[0].1["Properties"];
        assert_eq!(literal(&properties["ExtendedStatistic"]), Some("p99"), "{binary}");
        assert_eq!(
            properties["Threshold"].as_u64(),
            Some(timeout_s * 1000 * 8 / 10),
            "{binary}: the threshold is 80% of the {timeout_s} s timeout, in ms"
        );
        assert_eq!(literal(&properties["ComparisonOperator"]), Some("GreaterThanThreshold"));
    }
}

#[test]
fn every_table_has_a_throttling_alarm() {
    let template = template();
    for (id, _) in resources_of_type(&template, "AWS::DynamoDB::Table") {
        for metric in ["ReadThrottleEvents", "WriteThrottleEvents"] {
            let found = alarms_on(&template, "AWS/DynamoDB", metric, "TableName", id);
            assert_eq!(found.len(), 1, "{id}: one alarm reads {metric}");
        }
    }
}

#[test]
fn every_alarm_notifies_the_topic_and_the_email_subscription_is_optional() {
    let template = template();
    let alarms = alarms(&template);
    assert!(!alarms.is_empty());
    for (id, alarm) in &alarms {
        let actions = alarm["Properties"]["AlarmActions"].as_sequence().expect("AlarmActions");
        assert_eq!(actions.len(), 1, "{id}: one alarm action");
        assert_eq!(ref_target(&actions[0]), Some("AlarmTopic"), "{id}: notifies AlarmTopic");
        assert!(alarm["Properties"]["AlarmDescription"].as_str().is_some(), "{id}: described");
    }
    assert_eq!(
        literal(&template["Resources"]["AlarmTopic"]["Type"]),
        Some("AWS::SNS::Topic"),
        "the alarm topic"
    );
    let parameter = &template["Parameters"]["AlarmEmail"];
    assert_eq!(literal(&parameter["Default"]), Some(""), "AlarmEmail is optional");
    let subscriptions = resources_of_type(&template, "AWS::SNS::Subscription");
    assert_eq!(subscriptions.len(), 1, "one subscription");
    let (id, subscription) = subscriptions[0];
    assert_eq!(literal(&subscription["Condition"]), Some("HasAlarmEmail"), "{id}: conditional");
    assert_eq!(ref_target(&subscription["Properties"]["Endpoint"]), Some("AlarmEmail"));
    assert_eq!(ref_target(&subscription["Properties"]["TopicArn"]), Some("AlarmTopic"));
    assert_eq!(literal(&subscription["Properties"]["Protocol"]), Some("email"));
}

#[test]
fn alarms_read_only_metrics_the_code_emits() {
    let template = template();
    let mut read = BTreeSet::new();
    for (id, alarm) in alarms(&template) {
        for (namespace, name, dimensions) in alarm_metrics(alarm) {
            if namespace != emf::NAMESPACE {
                assert!(["AWS/Lambda", "AWS/DynamoDB"].contains(&namespace), "{id}: {namespace}");
                continue;
            }
            assert!(emitted(name), "{id}: {name} is not in emf::METRICS");
            let keys: Vec<&str> = dimensions.keys().copied().collect();
            assert_eq!(keys, [emf::ROUTE], "{id}: {name} is read by its Route dimension");
            let route = literal(dimensions[emf::ROUTE]).expect("a literal route");
            assert!(route_dimension(route), "{id}: Route {route} is not a route's name");
            read.insert(name);
        }
    }
    // Both ratio tripwires, as /metrics computes them, and the free vs paid metric math.
    for metric in
        [emf::TRIPWIRE_FREE_USE, emf::TRIPWIRE_REFUNDS, emf::FREE_PRECHECKS, emf::PAID_VERDICTS]
    {
        assert!(read.contains(metric), "no alarm reads {metric}");
    }
}

#[test]
fn the_tripwires_are_read_on_a_schedule_through_get_metrics() {
    let template = template();
    let functions = functions(&template);
    let (metrics_id, _) = functions[Route::Metrics.function()];
    let rules = resources_of_type(&template, "AWS::Events::Rule");
    assert_eq!(rules.len(), 1, "one schedule");
    let (rule_id, rule) = rules[0];
    let properties = &rule["Properties"];
    assert!(literal(&properties["ScheduleExpression"]).is_some_and(|s| s.starts_with("rate(")));
    let targets = properties["Targets"].as_sequence().expect("Targets");
    assert_eq!(targets.len(), 1);
    let arn = intrinsic(&targets[0]["Arn"], "GetAtt").and_then(Value::as_str);
    assert_eq!(arn, Some(format!("{metrics_id}.Arn").as_str()), "{rule_id} calls {metrics_id}");
    let input: serde_json::Value =
        serde_json::from_str(literal(&targets[0]["Input"]).expect("an Input")).expect("JSON");
    assert_eq!(input["version"], "2.0", "an HTTP API (v2) event");
    assert_eq!(input["rawPath"], Route::Metrics.path());
    assert_eq!(input["requestContext"]["http"]["method"], "GET");
    assert_eq!(input["requestContext"]["stage"], "$default", "no stage prefix on rawPath");
    assert_eq!(Route::of_path(input["rawPath"].as_str().unwrap()), Some(Route::Metrics));
    let permitted = resources_of_type(&template, "AWS::Lambda::Permission").into_iter().any(
        |(_, permission)| {
            let p = &permission["Properties"];
            ref_target(&p["FunctionName"]) == Some(metrics_id)
                && literal(&p["Principal"]) == Some("events.amazonaws.com")
                && intrinsic(&p["SourceArn"], "GetAtt").and_then(Value::as_str)
                    == Some(format!("{rule_id}.Arn").as_str())
        },
    );
    assert!(permitted, "{rule_id} may invoke {metrics_id}");
}

#[test]
fn one_dashboard_shows_only_emitted_metrics_and_every_alarm() {
    let template = template();
    let dashboards = resources_of_type(&template, "AWS::CloudWatch::Dashboard");
    assert_eq!(dashboards.len(), 1, "one dashboard");
    let body = intrinsic(&dashboards[0].1["Properties"]["DashboardBody"], "Sub")
        .and_then(Value::as_str)
        .expect("DashboardBody: !Sub <JSON>");
    // `${X}` and `${X.Arn}` substitutions, kept as their names.
    let mut plain = String::new();
    let mut alarm_refs = BTreeSet::new();
    let mut rest = body;
    while let Some(at) = rest.find("${") {
        plain.push_str(&rest[..at]);
        let end = rest[at..].find('}').expect("a closed ${...}") + at;
        let name = &rest[at + 2..end];
        if let Some(alarm) = name.strip_suffix(".Arn") {
            alarm_refs.insert(alarm.to_owned());
        }
        plain.push_str(name);
        rest = &rest[end + 1..];
    }
    plain.push_str(rest);
    let dashboard: serde_json::Value = serde_json::from_str(&plain).expect("the body is JSON");
    let mut shown = BTreeSet::new();
    for widget in dashboard["widgets"].as_array().expect("widgets") {
        for metric in widget["properties"]["metrics"].as_array().into_iter().flatten() {
            let metric = metric.as_array().expect("a metric array");
            match metric[0].as_str() {
                Some(namespace) => {
                    assert_eq!(namespace, emf::NAMESPACE);
                    let name = metric[1].as_str().expect("a metric name");
                    assert!(emitted(name), "the dashboard shows {name}, not in emf::METRICS");
                    assert_eq!(metric[2], emf::ROUTE);
                    assert!(route_dimension(metric[3].as_str().unwrap()), "{metric:?}");
                    shown.insert(name.to_owned());
                }
                None => {
                    let expression = metric[0]["expression"].as_str().expect("an expression");
                    for part in expression.split("MetricName=\"").skip(1) {
                        let name = part.split('"').next().unwrap_or_default();
                        assert!(emitted(name), "the dashboard searches {name}: not emitted");
                        shown.insert(name.to_owned());
                    }
                }
            }
        }
    }
    for name in [
        emf::REQUESTS,
        emf::LATENCY,
        emf::PAID_VERDICTS,
        emf::FREE_PRECHECKS,
        emf::TRIPWIRE_FREE_USE,
        emf::TRIPWIRE_REFUNDS,
    ] {
        assert!(shown.contains(name), "the dashboard does not show {name}");
    }
    let every_alarm: BTreeSet<String> =
        alarms(&template).into_iter().map(|(id, _)| id.to_owned()).collect();
    assert_same(
        "alarms",
        ("the template's alarms", &every_alarm),
        ("the dashboard's alarm widget", &alarm_refs),
    );
}
