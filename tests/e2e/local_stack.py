"""What template.yaml gives the Lambda functions, stood up on a local moto server (test code).

    python local_stack.py --endpoint http://127.0.0.1:PORT \
        --param OperatorWallet=W --param FacilitatorUrl=U --param SolanaRpcUrl=U ...

scripts/watch runs it with moto's Python (target/test-deps/venv: boto3, PyYAML and
cryptography come with moto[server]). It reads the `Environment.Variables` of every function
in template.yaml and resolves each value as CloudFormation would for a stack with the given
parameters (the template's defaults for the rest), creating on the moto server each resource
a value names, the way the template declares it:

* a DynamoDB table (`!Ref LedgerTable`): its key schema, attribute definitions, billing mode
  and TTL, named `<stack>-<logical id>`;
* a generated secret (`!Ref SigningKeySecret`): a value drawn by its `GenerateSecretString`
  rules, named by its `Name`;
* the `Custom::SigningKey` resource (`!GetAtt SigningKey.PublicKey`, `.ValidFrom`): what the
  signing-key function answers CloudFormation, from the seed in the secret its `SecretArn`
  names (the base64url Ed25519 public key, the secret's creation time).

Then it prints the environment, one `export NAME=value` line (shell-quoted) per variable,
the union over the functions (`cargo lambda watch` gives every function one environment); a
variable the template sets to `AWS::NoValue` is left out, and so is each `--leave-out` names
(scripts/watch says why it leaves one out). A construct it cannot stand in for,
or two functions giving one variable different values, stops it with one line saying which.
Loopback only: the endpoint must be http://127.0.0.1:PORT.
"""

from __future__ import annotations

import argparse
import base64
import re
import secrets
import shlex
import string
import sys
import time
from pathlib import Path

import boto3
import yaml
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

REGION = "us-east-1"
# How long a table may take to become ACTIVE (moto: at once).
ACTIVE_WITHIN_S = 30


class Unsupported(Exception):
    """A template construct this stand-in does not know."""


class TemplateLoader(yaml.SafeLoader):
    """YAML with CloudFormation's short-form tags: `!Ref X` loads as {"Ref": "X"}, any other
    `!Name value` as {"Fn::Name": value}."""


def _tagged(loader, suffix, node):
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    return {"Ref" if suffix == "Ref" else f"Fn::{suffix}": value}


TemplateLoader.add_multi_constructor("!", _tagged)


def function_environment(template):
    """{variable: template expression} over every function (Globals included)."""
    merged = {}
    sources = [("Globals", template.get("Globals", {}).get("Function", {}))]
    for name, resource in template["Resources"].items():
        if resource.get("Type") in ("AWS::Serverless::Function", "AWS::Lambda::Function"):
            sources.append((name, resource.get("Properties", {})))
    for name, properties in sources:
        variables = (properties.get("Environment") or {}).get("Variables") or {}
        for variable, expression in variables.items():
            if variable in merged and merged[variable][1] != expression:
                raise Unsupported(
                    f"{variable}: {merged[variable][0]} and {name} give it different values, "
                    "and cargo lambda watch gives every function one environment")
            merged.setdefault(variable, (name, expression))
    return {variable: expression for variable, (_, expression) in merged.items()}


class LocalStack:
    """A stack of template.yaml whose resources live on a local moto server, made on demand."""

    def __init__(self, template, parameters, stack_name, endpoint):
        self.template = template
        self.stack_name = stack_name
        self.parameters = {
            name: str(declared["Default"])
            for name, declared in template.get("Parameters", {}).items()
            if "Default" in declared
        }
        unknown = set(parameters) - set(template.get("Parameters", {}))
        if unknown:
            raise Unsupported(f"template.yaml declares no parameter {sorted(unknown)}")
        self.parameters.update(parameters)
        self.made = {}  # logical id -> (physical id, attributes)
        settings = dict(region_name=REGION, endpoint_url=endpoint, aws_access_key_id="local",
                        aws_secret_access_key="local",
                        config=Config(retries={"max_attempts": 2}, connect_timeout=5, read_timeout=30))
        self.dynamodb = boto3.client("dynamodb", **settings)
        self.secrets = boto3.client("secretsmanager", **settings)

    # ------------------------------------------------------------------ intrinsic functions

    def resolve(self, expression):
        """The value of a template expression; None for AWS::NoValue."""
        if isinstance(expression, bool):
            return "true" if expression else "false"
        if isinstance(expression, (str, int, float)):
            return str(expression)
        if isinstance(expression, dict) and len(expression) == 1:
            (function, argument), = expression.items()
            if function == "Ref":
                return self.ref(argument)
            if function == "Fn::If":
                condition, if_true, if_false = argument
                return self.resolve(if_true if self.condition(condition) else if_false)
            if function == "Fn::GetAtt":
                logical_id, attribute = (argument.split(".", 1) if isinstance(argument, str)
                                         else argument)
                return self.attribute(logical_id, attribute)
            if function == "Fn::Sub" and isinstance(argument, str):
                return re.sub(r"\$\{([^}!]+)\}", lambda m: self.sub(m.group(1)), argument)
        raise Unsupported(f"{expression!r}")

    def sub(self, name):
        if "." in name:
            return self.attribute(*name.split(".", 1))
        return self.ref(name)

    def ref(self, name):
        pseudo = {"AWS::NoValue": None, "AWS::StackName": self.stack_name, "AWS::Region": REGION,
                  "AWS::AccountId": "123456789012", "AWS::Partition": "aws"}
        if name in pseudo:
            return pseudo[name]
        if name in self.template.get("Parameters", {}):
            if name not in self.parameters:
                raise Unsupported(f"the parameter {name} has no default: pass --param {name}=...")
            return self.parameters[name]
        if name in self.template["Resources"]:
            return self.make(name)[0]
        raise Unsupported(f"Ref {name}")

    def condition(self, name):
        return self.truth(self.template["Conditions"][name])

    def truth(self, expression):
        (function, argument), = expression.items()
        if function == "Fn::Equals":
            left, right = (self.resolve(side) for side in argument)
            return left == right
        if function == "Fn::Not":
            return not self.truth(argument[0])
        if function == "Fn::And":
            return all(self.truth(each) for each in argument)
        if function == "Fn::Or":
            return any(self.truth(each) for each in argument)
        if function == "Condition":
            return self.condition(argument)
        raise Unsupported(f"condition {expression!r}")

    def attribute(self, logical_id, attribute):
        attributes = self.make(logical_id)[1]
        if attribute not in attributes:
            raise Unsupported(f"GetAtt {logical_id}.{attribute}")
        return attributes[attribute]

    # ------------------------------------------------------------------ resources

    def make(self, logical_id):
        """(physical id, attributes) of a resource, created on moto the first time."""
        if logical_id not in self.made:
            resource = self.template["Resources"][logical_id]
            if "Condition" in resource and not self.condition(resource["Condition"]):
                raise Unsupported(f"{logical_id} is not created with these parameters")
            kind = resource["Type"]
            properties = resource.get("Properties", {})
            if kind == "AWS::DynamoDB::Table":
                made = self.table(logical_id, properties)
            elif kind == "AWS::SecretsManager::Secret":
                made = self.secret(properties)
            elif kind == "Custom::SigningKey":
                made = self.signing_key(properties)
            else:
                raise Unsupported(f"{logical_id} ({kind})")
            self.made[logical_id] = made
        return self.made[logical_id]

    def table(self, logical_id, properties):
        name = properties.get("TableName") or f"{self.stack_name}-{logical_id}"
        self.dynamodb.create_table(
            TableName=name,
            AttributeDefinitions=properties["AttributeDefinitions"],
            KeySchema=properties["KeySchema"],
            BillingMode=properties.get("BillingMode", "PROVISIONED"),
        )
        deadline = time.monotonic() + ACTIVE_WITHIN_S
        while self.dynamodb.describe_table(TableName=name)["Table"]["TableStatus"] != "ACTIVE":
            if time.monotonic() > deadline:
                raise SystemExit(f"local_stack: table {name} not ACTIVE within {ACTIVE_WITHIN_S} s")
            time.sleep(0.1)
        ttl = properties.get("TimeToLiveSpecification")
        if ttl:
            self.dynamodb.update_time_to_live(
                TableName=name,
                TimeToLiveSpecification={"AttributeName": ttl["AttributeName"],
                                         "Enabled": bool(ttl["Enabled"])})
        arn = f"arn:aws:dynamodb:{REGION}:123456789012:table/{name}"
        return name, {"Arn": arn}

    def secret(self, properties):
        rules = properties.get("GenerateSecretString")
        if "SecretString" in properties:
            value = self.resolve(properties["SecretString"])
        elif rules and set(rules) <= {"PasswordLength", "ExcludeUppercase", "ExcludeLowercase",
                                      "ExcludeNumbers", "ExcludePunctuation", "IncludeSpace",
                                      "ExcludeCharacters"}:
            value = generated(rules)
        else:
            raise Unsupported(f"a secret with {sorted(properties)}")
        created = self.secrets.create_secret(Name=self.resolve(properties["Name"]),
                                             SecretString=value)
        return created["ARN"], {"Id": created["ARN"]}

    def signing_key(self, properties):
        arn = self.resolve(properties["SecretArn"])
        stored = self.secrets.get_secret_value(SecretId=arn)
        seed = bytes.fromhex(stored["SecretString"])
        public = Ed25519PrivateKey.from_private_bytes(seed).public_key()
        raw = public.public_bytes(Encoding.Raw, PublicFormat.Raw)
        created = stored["CreatedDate"]
        valid_from = created.strftime("%Y-%m-%dT%H:%M:%S.") + f"{created.microsecond // 1000:03d}Z"
        return arn, {"PublicKey": base64.urlsafe_b64encode(raw).rstrip(b"=").decode(),
                     "ValidFrom": valid_from}


def generated(rules):
    """A value drawn as Secrets Manager's GenerateSecretString draws one from these rules."""
    alphabet = ""
    if not rules.get("ExcludeLowercase"):
        alphabet += string.ascii_lowercase
    if not rules.get("ExcludeUppercase"):
        alphabet += string.ascii_uppercase
    if not rules.get("ExcludeNumbers"):
        alphabet += string.digits
    if not rules.get("ExcludePunctuation"):
        alphabet += string.punctuation
    if rules.get("IncludeSpace"):
        alphabet += " "
    alphabet = "".join(c for c in alphabet if c not in str(rules.get("ExcludeCharacters", "")))
    return "".join(secrets.choice(alphabet) for _ in range(int(rules.get("PasswordLength", 32))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--template", default=str(Path(__file__).resolve().parents[2] / "template.yaml"))
    ap.add_argument("--endpoint", required=True, help="moto's URL, http://127.0.0.1:PORT")
    ap.add_argument("--stack-name", default="payability-local")
    ap.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                    help="a stack parameter (repeatable)")
    ap.add_argument("--leave-out", action="append", default=[], metavar="VARIABLE",
                    help="a variable of the template's to leave out of the environment (repeatable)")
    args = ap.parse_args()
    if not re.fullmatch(r"http://127\.0\.0\.1:[0-9]+", args.endpoint):
        ap.error(f"--endpoint must be http://127.0.0.1:PORT (loopback only), not {args.endpoint}")
    parameters = dict(p.split("=", 1) for p in args.param)
    template = yaml.load(Path(args.template).read_text(), Loader=TemplateLoader)
    try:
        stack = LocalStack(template, parameters, args.stack_name, args.endpoint)
        environment = {}
        given = function_environment(template)
        unknown = set(args.leave_out) - set(given)
        if unknown:
            raise Unsupported(f"--leave-out {sorted(unknown)}: the template gives it no function")
        for variable, expression in given.items():
            if variable in args.leave_out:
                continue
            try:
                value = stack.resolve(expression)
            except Unsupported as problem:
                raise Unsupported(f"{variable}: {problem}") from None
            if value is not None:
                environment[variable] = value
    except Unsupported as problem:
        print(f"local_stack: cannot stand in for what template.yaml gives the functions: {problem}",
              file=sys.stderr)
        return 1
    except (BotoCoreError, ClientError) as problem:
        print(f"local_stack: the moto server at {args.endpoint} said: {problem}", file=sys.stderr)
        return 1
    for variable in sorted(environment):
        print(f"export {variable}={shlex.quote(environment[variable])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
