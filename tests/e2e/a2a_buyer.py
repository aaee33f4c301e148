"""A2A buyer for the end-to-end tests (test code): an agent on the official SDKs, the A2A SDK's
card resolver and JSON-RPC client (`a2a-sdk` 1.3.0: A2A 1.0, or its 0.3 compatibility layer)
with the official x402 Python SDK's Solana client (x402 2.25.0, the SVM exact scheme) building
the payment. The x402 A2A extension itself has no package for these pins, so its glue is here:
activate the extension, read `x402.payment.required` from the task, pay it, answer the task
with `x402.payment.payload`, read `x402.payment.receipts`.

    python a2a_buyer.py --url BASE --target URL --rpc http://127.0.0.1:RPC
        [--skill check|memo] [--protocol 1.0|0.3] [--keypair-seed-hex HEX] [--calls N] [--no-criteria]
        [--compare-http URL]

It reads the card at BASE/.well-known/agent-card.json, calls the free `criteria` skill (not
with --no-criteria), then makes N paid calls of the skill (each a new payment; --calls 0 makes
none): a message naming the skill and the target, the task in input-required with our
challenge, the payment built by the x402 client, the task continued by its id with the
payment, the completed task. --protocol 0.3 keeps only the card's 0.3 interface, so the SDK
speaks `message/send` through its compatibility layer. --compare-http URL interleaves each
paid call with one paid POST to URL through the official HTTP client on the same x402 client,
timed the same way.

Output (stdout, one line): {"card": {"name", "skills", "extensions", "interfaces"},
"criteria": the criteria skill's artifact, "paid": [{"waiting": the first task's state and
x402 status, "state", "payment_status", "report" (the artifact), "receipt"
(`x402.payment.receipts[0]`), "task_id_kept", "seconds" (message, payment, message)}],
"payer", "error" (null, or why it stopped: failure.py's one line), "methods" (the JSON-RPC
method of every POST the A2A client sent), "http_seconds", "median_seconds"}. Exit 0 when the
calls were made (whatever they answered), 3 when a client itself failed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
import uuid

for _var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
    os.environ.pop(_var, None)
os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import svm_payment as sp  # noqa: E402
from failure import describe  # noqa: E402

# The x402 A2A extension (google-agentic-commerce/a2a-x402 spec/v0.2).
X402_EXTENSION = "https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2"


def message(parts, task=None, metadata=None):
    """A user message with `parts`, continuing `task` when given, with `metadata`."""
    from a2a.types.a2a_pb2 import Message, Role

    sent = Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=parts)
    if task is not None:
        sent.task_id = task.id
        sent.context_id = task.context_id
    if metadata:
        sent.metadata.update(metadata)
    return sent


def data_part(data: dict):
    """A data part carrying `data`."""
    from a2a.types.a2a_pb2 import Part
    from google.protobuf import json_format, struct_pb2

    return Part(data=json_format.ParseDict(data, struct_pb2.Value()), media_type="application/json")


async def send(client, sent, context):
    """Sends one message (non-streaming); returns the task answered."""
    from a2a.types.a2a_pb2 import SendMessageRequest

    task = None
    async for event in client.send_message(SendMessageRequest(message=sent), context=context):
        if event.HasField("task"):
            task = event.task
    if task is None:
        raise RuntimeError("the agent answered no task")
    return task


def plain(proto) -> dict:
    """A protobuf message (or Struct) as plain JSON."""
    from google.protobuf import json_format

    return json_format.MessageToDict(proto)


def artifact(task):
    """The first artifact's data part, as JSON."""
    if not task.artifacts:
        return None
    return plain(task.artifacts[0].parts[0]).get("data")


async def run(args, out: dict) -> None:
    import httpx
    from a2a.client import A2ACardResolver, ClientCallContext, ClientConfig, ClientFactory
    from a2a.client.service_parameters import ServiceParametersFactory, with_a2a_extensions
    from a2a.types.a2a_pb2 import Part, TaskState
    from x402 import x402Client
    from x402.mechanisms.svm import KeypairSigner
    from x402.mechanisms.svm.exact import register_exact_svm_client
    from x402.schemas import PaymentRequired

    kp = sp.keypair_from_seed_hex(args.keypair_seed_hex)
    out["payer"] = str(kp.pubkey())
    payer = x402Client()
    register_exact_svm_client(payer, KeypairSigner(kp), rpc_url=args.rpc)
    async def note_method(request) -> None:
        if request.method == "POST":
            out["methods"].append(json.loads(request.content).get("method"))

    hooks = {"request": [note_method]}
    async with httpx.AsyncClient(timeout=60, trust_env=False, event_hooks=hooks) as http:
        card = await A2ACardResolver(http, args.url).get_agent_card()
        out["card"] = {
            "name": card.name,
            "skills": [skill.id for skill in card.skills],
            "extensions": [{"uri": e.uri, "required": e.required} for e in card.capabilities.extensions],
            "interfaces": [plain(i) for i in card.supported_interfaces],
        }
        if args.protocol == "0.3":
            kept = [i for i in card.supported_interfaces if i.protocol_version.startswith("0.3")]
            del card.supported_interfaces[:]
            card.supported_interfaces.extend(kept)
        config = ClientConfig(streaming=False, httpx_client=http, supported_protocol_bindings=["JSONRPC"])
        client = ClientFactory(config).create(card)
        context = ClientCallContext(
            service_parameters=ServiceParametersFactory.create([with_a2a_extensions([X402_EXTENSION])]))

        if not args.no_criteria:
            criteria = await send(client, message([Part(text="criteria")]), context)
            out["criteria"] = artifact(criteria)

        for _ in range(args.calls):
            started = time.monotonic()
            call = data_part({"skill": args.skill, "url": args.target})
            waiting = await send(client, message([call]), context)
            status = plain(waiting.status.message.metadata)
            entry = {"waiting": {"state": TaskState.Name(waiting.status.state),
                                 "payment_status": status.get("x402.payment.status")}}
            required = PaymentRequired.model_validate(status["x402.payment.required"])
            payload = await payer.create_payment_payload(required)
            submitted = {
                "x402.payment.status": "payment-submitted",
                "x402.payment.payload": payload.model_dump(mode="json", by_alias=True, exclude_none=True),
            }
            paying = message([Part(text="Here is the payment.")], task=waiting, metadata=submitted)
            done = await send(client, paying, context)
            seconds = time.monotonic() - started
            final = plain(done.status.message.metadata)
            receipts = final.get("x402.payment.receipts") or [None]
            entry.update({
                "state": TaskState.Name(done.status.state),
                "payment_status": final.get("x402.payment.status"),
                "payment_error": final.get("x402.payment.error"),
                "report": artifact(done),
                "receipt": receipts[0],
                "task_id_kept": done.id == waiting.id and done.context_id == waiting.context_id,
                "seconds": round(seconds, 4),
            })
            out["paid"].append(entry)
            if args.compare_http:
                from x402.http.clients import x402HttpxClient

                async with x402HttpxClient(payer, timeout=30, trust_env=False) as paying_http:
                    began = time.monotonic()
                    answer = await paying_http.post(args.compare_http, json={"url": args.target})
                    out["http_seconds"].append(round(time.monotonic() - began, 4))
                    if answer.status_code != 200:
                        raise RuntimeError(f"the HTTP purchase answered {answer.status_code}")
        await client.close()


def main() -> int:
    ap = argparse.ArgumentParser(description="x402 A2A buyer for the loopback end-to-end tests")
    ap.add_argument("--url", required=True, help="the agent's base URL (its card is under it)")
    ap.add_argument("--target", required=True, help="the URL to have checked")
    ap.add_argument("--rpc", required=True, help="Solana RPC (the loopback stub)")
    ap.add_argument("--skill", default="check", choices=["check", "memo"])
    ap.add_argument("--protocol", default="1.0", choices=["1.0", "0.3"])
    ap.add_argument("--keypair-seed-hex", help="32-byte buyer seed (default: a fresh key)")
    ap.add_argument("--calls", type=int, default=1)
    ap.add_argument("--no-criteria", action="store_true", help="skip the free criteria call")
    ap.add_argument("--compare-http", metavar="URL", help="time the HTTP route too (see above)")
    args = ap.parse_args()
    out = {"card": None, "criteria": None, "paid": [], "payer": None, "error": None, "http_seconds": [],
           "methods": []}
    try:
        asyncio.run(asyncio.wait_for(run(args, out), timeout=120))
    except BaseException as e:  # noqa: BLE001 (an exception group included)
        out["error"] = describe(e)
        print(json.dumps(out, separators=(",", ":")), flush=True)
        return 3
    if out["paid"]:
        out["median_seconds"] = {"a2a": statistics.median(p["seconds"] for p in out["paid"])}
        if out["http_seconds"]:
            out["median_seconds"]["http"] = statistics.median(out["http_seconds"])
    print(json.dumps(out, separators=(",", ":")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
