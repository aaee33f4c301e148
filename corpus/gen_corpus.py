#!/usr/bin/env python3
"""Independent generator for payability-corpus/v1 (criteria payability/v1, revision 1.5.0).

Written from the criteria text only (seed field_rule / state_rule / description_flag /
memo_op, and corpus/INTERPRETATIONS.md), never from the Rust engine. Standard library only.

    python3 corpus/gen_corpus.py              write corpus/payability-corpus-v1.json
    python3 corpus/gen_corpus.py --check      regenerate in memory, compare byte for byte
    python3 corpus/gen_corpus.py --self-test  hand-computed vectors for the grader
"""

import base64
import hashlib
import json
import math
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent / "payability-corpus-v1.json"
BODY_CAP = 65_536
HEADER_CAP = 16_384
DESCRIPTION_LIMIT = 500
MAX_DEPTH = 127

# ======================================================================================
# The grader: an independent implementation of the published rules. Pure functions.
# ======================================================================================


class NotJson(ValueError):
    """Raised inside parse_json for anything rule 2 says is not JSON."""


def _reject_constant(_name):
    raise NotJson("NaN/Infinity")


def _finite_number(s):
    if math.isinf(float(s)):  # float() of a digit string saturates to inf, never raises
        raise NotJson("number not finite as a double")
    return int(s) if re.fullmatch(r"-?[0-9]+", s, re.ASCII) else float(s)


def max_nesting(text):
    """Deepest array/object nesting of a JSON text, scanned iteratively (no recursion)."""
    depth = best = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            best = max(best, depth)
        elif ch in "]}":
            depth -= 1
    return best


def has_lone_surrogate(value):
    """True when any string (object keys included) holds a code point in U+D800..U+DFFF."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if any(0xD800 <= ord(c) <= 0xDFFF for c in v):
                return True
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


def parse_json(data):
    """Rule 2. Returns (True, value) when `data` (bytes) is JSON here, else (False, None)."""
    try:
        text = data.decode("utf-8")  # strict: invalid UTF-8 and encoded surrogates fail
    except UnicodeDecodeError:
        return False, None
    if text.startswith("\ufeff"):
        return False, None
    if max_nesting(text) > MAX_DEPTH:  # a valid text is measured exactly; an invalid one fails anyway
        return False, None
    try:
        value = json.loads(text, parse_constant=_reject_constant,
                           parse_float=_finite_number, parse_int=_finite_number)
    except (ValueError, RecursionError):
        return False, None
    if has_lone_surrogate(value):
        return False, None
    return True, value


B64_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
ASCII_WHITESPACE = "\t\n\x0c\r "


def forgiving_base64(text):
    """WHATWG forgiving-base64 decode (rule 4). Returns bytes, or None on failure."""
    s = "".join(c for c in text if c not in ASCII_WHITESPACE)
    if len(s) % 4 == 0:
        if s.endswith("=="):
            s = s[:-2]
        elif s.endswith("="):
            s = s[:-1]
    if len(s) % 4 == 1:
        return None
    if any(c not in B64_ALPHABET for c in s):
        return None
    return base64.b64decode(s + "=" * (-len(s) % 4))  # leftover bits are discarded


def present(v):
    """Rule 5: a JSON string that is not empty -> the string, else None."""
    return v if isinstance(v, str) and v != "" else None


def amount_present(v):
    """Rule 5: a JSON string of one or more ASCII digits -> the string, else None."""
    return v if isinstance(v, str) and re.fullmatch(r"[0-9]+", v, re.ASCII) else None


def equality(a, b):
    """Rule 6 (A1 semantics) over two 'carried' values (None = not carried)."""
    if a is None and b is None:
        return None
    return a is not None and b is not None and a == b


def first_accept(top):
    """top.accepts[0] when top is an object, accepts a non-empty array, and [0] an object."""
    if not isinstance(top, dict):
        return None
    accepts = top.get("accepts")
    if isinstance(accepts, list) and accepts and isinstance(accepts[0], dict):
        return accepts[0]
    return None


def extra_of(accept):
    extra = accept.get("extra") if accept is not None else None
    return extra if isinstance(extra, dict) else {}


def census(accept):
    """Rule 15: sorted union of accepts[0] key names and accepts[0].extra key names."""
    if accept is None:
        return []
    return sorted(set(accept) | set(extra_of(accept)))


def capture(fetch):
    """Rules 4 and 10: what one fetch captured, decoded (body JSON, header base64+JSON), caps applied."""
    c = {"fetch_ok": False, "status": None, "over_cap": False, "body_ok": False, "body": None,
         "header_present": False, "header_over_cap": False, "header_ok": False, "header": None}
    if fetch["outcome"] != "response":
        return c
    c["fetch_ok"] = True
    c["status"] = fetch["status"]
    body = fetch["body"]
    if body.get("over_cap"):
        c["over_cap"] = True
    else:
        raw = body["text"].encode("utf-8") if "text" in body else base64.b64decode(body["base64"], validate=True)
        c["body_ok"], c["body"] = parse_json(raw)
    if fetch["payment_required"] is not None:
        c["header_present"] = True
        if len(fetch["payment_required"].encode("utf-8")) > HEADER_CAP:
            c["header_over_cap"] = True
        else:
            decoded = forgiving_base64(fetch["payment_required"])
            if decoded is not None:
                c["header_ok"], c["header"] = parse_json(decoded)
    return c


def body_leg(c):
    """Rule 3. Every field None when the body leg does not exist."""
    acc = first_accept(c["body"]) if c["body_ok"] else None
    if acc is None:
        return {"accept": None, "recipient": None, "token": None, "memo": None, "amount": None,
                "max": None, "resource": None, "description": None}
    extra = extra_of(acc)
    description = acc.get("description")
    return {
        "accept": acc,
        "recipient": present(acc.get("payTo")),
        "token": present(extra.get("usdc_token_account")),
        "memo": present(extra.get("memo")) or present(c["body"].get("memo")),
        "amount": amount_present(acc.get("amount")),
        "max": amount_present(acc.get("maxAmountRequired")),
        "resource": present(acc.get("resource")),
        "description": description if isinstance(description, str) else None,
    }


def header_leg(c):
    """Rule 4. Every field None when the header is absent, undecodable, or not an object."""
    top = c["header"] if c["header_ok"] else None
    resource = top.get("resource") if isinstance(top, dict) else None
    acc = first_accept(top)
    extra = extra_of(acc)
    return {
        "accept": acc,
        "resource": present(resource.get("url")) if isinstance(resource, dict) else None,
        "memo": present(extra.get("memo")),
        "amount": amount_present(acc.get("amount")) if acc is not None else None,
        "pay_to": present(acc.get("payTo")) if acc is not None else None,
    }


def grade_check(called_url, fetch):
    """The check op: one fetch -> (state, factors)."""
    c = capture(fetch)
    b, h = body_leg(c), header_leg(c)

    reason = None
    if not c["fetch_ok"]:
        reason = fetch["outcome"]
    elif c["status"] != 402:
        reason = "status_not_402"
    elif c["over_cap"]:
        reason = "body_over_cap"

    amounts_consistent = (b["amount"] is not None
                          and (b["max"] is None or b["max"] == b["amount"])
                          and (h["amount"] is None or h["amount"] == b["amount"]))
    resources = [r for r in (b["resource"], h["resource"]) if r is not None]
    resource_equal = None if not resources else all(r == called_url for r in resources)
    memo_equal = equality(b["memo"], h["memo"])
    amount_equal = equality(b["amount"], h["amount"])
    pay_to_equal = equality(b["recipient"], h["pay_to"])
    length = len(b["description"]) if b["description"] is not None else None

    if reason is not None:
        state = "NOT-A-402"
    elif resource_equal is False:
        state = "RESOURCE-MISMATCH"
    elif not c["header_ok"]:
        state = "HEADER-MISSING"
    elif amounts_consistent and b["recipient"] is None and b["token"] is None and b["memo"] is None:
        state = "AMOUNTS-ONLY"
    elif (not amounts_consistent or None in (b["recipient"], b["token"], b["memo"], b["resource"])
          or False in (memo_equal, amount_equal, pay_to_equal) or not c["body_ok"]):
        state = "UNCONFIGURED"
    else:
        state = "POPULATED"

    factors = {"fetch_ok": c["fetch_ok"], "status": c["status"], "body_over_cap": c["over_cap"]}
    if reason is not None:
        factors["reason"] = reason
    factors.update({
        "body_parseable": c["body_ok"],
        "body_leg_present": b["accept"] is not None,
        "header_present": c["header_present"],
        "header_over_cap": c["header_over_cap"],
        "header_decodable": c["header_ok"],
        "recipient_present": b["recipient"] is not None,
        "token_account_present": b["token"] is not None,
        "memo_present": b["memo"] is not None,
        "amounts_present": b["amount"] is not None,
        "amounts_consistent": amounts_consistent,
        "resource_present": b["resource"] is not None,
        "resource_equal": resource_equal,
        "memo_equal": memo_equal,
        "amount_equal": amount_equal,
        "pay_to_equal": pay_to_equal,
        "description_overlong": length is not None and length > DESCRIPTION_LIMIT,
        "description_length": length,
    })
    return state, factors, check_decided_by(state, factors)


CHECK_STEPS = ["NOT-A-402", "RESOURCE-MISMATCH", "HEADER-MISSING", "AMOUNTS-ONLY", "UNCONFIGURED", "POPULATED"]


def listed(conditions):
    """Rule 19: the {factor, value} (and fetch) of every condition that holds, in the order given."""
    out = []
    for name, value, holds, fetch in conditions:
        if holds:
            entry = {"factor": name, "value": value}
            if fetch is not None:
                entry["fetch"] = fetch
            out.append(entry)
    return out


def check_decided_by(state, f):
    """Rule 19, check: the step number of the state and the factors meeting that step's conditions."""
    step = CHECK_STEPS.index(state) + 1
    absent = lambda name: (name, f[name], f[name] is False, None)
    true = lambda name: (name, f[name], f[name] is True, None)
    failed_equality = lambda name: (name, f[name], f[name] is False, None)
    conditions = {
        1: [absent("fetch_ok"), ("status", f["status"], f["status"] != 402, None),
            true("body_over_cap")],
        2: [failed_equality("resource_equal")],
        3: [absent("header_present"), true("header_over_cap"), absent("header_decodable")],
        4: [absent("recipient_present"), absent("token_account_present"), absent("memo_present"),
            true("amounts_present"), true("amounts_consistent")],
        5: [absent("body_parseable"), absent("body_leg_present"), absent("recipient_present"),
            absent("token_account_present"), absent("memo_present"), absent("amounts_present"),
            absent("amounts_consistent"), absent("resource_present"), failed_equality("memo_equal"),
            failed_equality("amount_equal"), failed_equality("pay_to_equal")],
        6: [],
    }[step]
    return {"step": step, "factors": listed(conditions)}


PREFIXED_OPAQUE = re.compile(r"[A-Za-z][A-Za-z0-9]*[-_][A-Za-z0-9_-]+", re.ASCII)


def memo_format(memo):
    """Rule 13 structural format class of one memo (None = no memo)."""
    if memo is None:
        return "absent"
    if len(memo) < 8:
        return "short"
    if PREFIXED_OPAQUE.fullmatch(memo):
        first_separator = min(i for i in (memo.find("-"), memo.find("_")) if i >= 0)
        if first_separator >= 2:
            return "prefixed-opaque"
    return "opaque"


def pair_grades(m1, m2):
    """Uniqueness and freshness of one leg across the two fetches (rule 13)."""
    if m1 is None or m2 is None:
        return None, "not_gradable"
    return m1 != m2, ("regenerated" if m1 != m2 else "static")


def grade_memo(called_url, fetch1, fetch2):
    """The memo op: two fetches -> (state, factors). called_url is not graded by this op."""
    caps = [capture(f) for f in (fetch1, fetch2)]
    bodies = [body_leg(c) for c in caps]
    headers = [header_leg(c) for c in caps]
    bm = [b["memo"] for b in bodies]
    hm = [h["memo"] for h in headers]
    eq = [equality(bm[i], hm[i]) for i in (0, 1)]
    body_unique, body_fresh = pair_grades(*bm)
    header_unique, header_fresh = pair_grades(*hm)

    reason = None
    if any(not c["fetch_ok"] or c["status"] != 402 or c["over_cap"] for c in caps):
        state = "NOT-A-402"
    elif bm[0] is None and bm[1] is None:
        state = "MEMO-ABSENT"
    elif False in eq:
        state = "LEG-MISMATCH"
    elif None not in bm and bm[0] == bm[1]:
        state = "MEMO-REUSED"
    elif None not in bm and body_unique and eq == [True, True]:
        state = "BOUND"
    elif (bm[0] is None) != (bm[1] is None):
        state, reason = "MEMO-ABSENT", "memo_absent_one_fetch"
    else:
        state, reason = "LEG-MISMATCH", "memo_binding_not_established"

    factors = {
        "fetches": [{
            "fetch_ok": c["fetch_ok"],
            "status": c["status"],
            "is_402": c["status"] == 402,
            "body_over_cap": c["over_cap"],
            "body_parseable": c["body_ok"],
            "body_leg_present": b["accept"] is not None,
            "header_present": c["header_present"],
            "header_over_cap": c["header_over_cap"],
            "header_decodable": c["header_ok"],
            "body_memo_present": b["memo"] is not None,
            "header_memo_present": h["memo"] is not None,
        } for c, b, h in zip(caps, bodies, headers)],
        "memo_equality_fetch1": eq[0],
        "memo_equality_fetch2": eq[1],
        "body_memos_unique": body_unique,
        "header_memos_unique": header_unique,
        "body_freshness_class": body_fresh,
        "header_freshness_class": header_fresh,
        "body_memo_format_fetch1": memo_format(bm[0]),
        "body_memo_format_fetch2": memo_format(bm[1]),
        "header_memo_format_fetch1": memo_format(hm[0]),
        "header_memo_format_fetch2": memo_format(hm[1]),
        "correlation_census": {
            f"fetch{i + 1}": {"body": census(bodies[i]["accept"]), "header": census(headers[i]["accept"])}
            for i in (0, 1)
        },
    }
    if reason is not None:
        factors["reason"] = reason
    return state, factors, memo_decided_by(state, reason, factors)


MEMO_STEPS = {("NOT-A-402", None): 1, ("MEMO-ABSENT", None): 2, ("LEG-MISMATCH", None): 3,
              ("MEMO-REUSED", None): 4, ("BOUND", None): 5, ("MEMO-ABSENT", "memo_absent_one_fetch"): 6,
              ("LEG-MISMATCH", "memo_binding_not_established"): 7}


def memo_decided_by(state, reason, f):
    """Rule 19, memo: the step (6 and 7 are the completion rules) and the factors meeting it."""
    step = MEMO_STEPS[(state, reason)]
    pair = lambda name, holds: (name, f[name], holds(f[name]), None)
    false, true, not_true = (lambda v: v is False), (lambda v: v is True), (lambda v: v is not True)
    body_memo_gone = [c for n in (0, 1) for c in (
        ("body_leg_present", f["fetches"][n]["body_leg_present"], f["fetches"][n]["body_leg_present"] is False, n + 1),
        ("body_memo_present", f["fetches"][n]["body_memo_present"], f["fetches"][n]["body_memo_present"] is False, n + 1))]
    not_a_402 = [c for n in (0, 1) for c in (
        ("fetch_ok", f["fetches"][n]["fetch_ok"], f["fetches"][n]["fetch_ok"] is False, n + 1),
        ("is_402", f["fetches"][n]["is_402"], f["fetches"][n]["is_402"] is False, n + 1),
        ("body_over_cap", f["fetches"][n]["body_over_cap"], f["fetches"][n]["body_over_cap"] is True, n + 1))]
    conditions = {
        1: not_a_402,
        2: body_memo_gone,
        3: [pair("memo_equality_fetch1", false), pair("memo_equality_fetch2", false)],
        4: [pair("body_memos_unique", false)],
        5: [pair("memo_equality_fetch1", true), pair("memo_equality_fetch2", true), pair("body_memos_unique", true)],
        6: body_memo_gone,
        7: [pair("memo_equality_fetch1", not_true), pair("memo_equality_fetch2", not_true)],
    }[step]
    return {"step": step, "factors": listed(conditions)}


# ======================================================================================
# Small constructors for challenges and fetches.
# ======================================================================================

URL = "https://seller.example/api/weather"
SPEC_URL = "https://api.example/premium-data"
PAY_TO = "SeLLerWa11et9xQeWvG816bUx9EPjHmaT23yvVM2ZWb"
TOKEN_ACCOUNT = "ATAaccount4Yh7DkqWq6bCpUSDCtoken8rTnGf2mXzK"
FEE_PAYER = "FeePayer2wJb8sVnq7TzGf5KcXhR3mDy9AuPpLtE6QaS"
USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
SOLANA_V2 = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"
AMOUNT = "10000"
MEMO = "pvm_3f9a2b7c1d4e5f60"
DESCRIPTION = "Current weather for one city"

DROP = object()      # as a constructor override: remove the key
DEFAULT = object()   # as a resp() argument: the realistic default
OVER_CAP = object()  # as a resp() body: over the 65,536-byte cap, not kept
FAILED = {"outcome": "fetch_failed"}
TIMEOUT = {"outcome": "timeout"}


def _apply(base, over):
    """Override keys of `base`; keys starting x_ go into `extra` (when it is a dict)."""
    out = dict(base)
    for key, value in over.items():
        target, name = (out["extra"], key[2:]) if key.startswith("x_") else (out, key)
        if value is DROP:
            target.pop(name, None)
        else:
            target[name] = value
    return out


def v1_accept(**over):
    """One v1 PaymentRequirements object (body leg) in the fleet's realistic shape."""
    base = {"scheme": "exact", "network": "solana", "maxAmountRequired": AMOUNT, "amount": AMOUNT,
            "resource": URL, "description": DESCRIPTION, "mimeType": "application/json",
            "payTo": PAY_TO, "maxTimeoutSeconds": 60, "asset": USDC,
            "extra": {"feePayer": FEE_PAYER, "usdc_token_account": TOKEN_ACCOUNT, "memo": MEMO}}
    if "extra" in over:
        base["extra"] = over.pop("extra")
    else:
        base["extra"] = dict(base["extra"])
    return _apply(base, over)


def v1_body(accepts=DEFAULT, **top):
    """A v1 402 JSON body; accepts defaults to [v1_accept()]."""
    body = {"x402Version": 1, "error": "X-PAYMENT header is required",
            "accepts": [v1_accept()] if accepts is DEFAULT else accepts}
    return _apply(body, top)


def v2_accept(**over):
    """One v2 PaymentRequirements object (header leg) in the fleet's realistic shape."""
    base = {"scheme": "exact", "network": SOLANA_V2, "amount": AMOUNT, "asset": USDC, "payTo": PAY_TO,
            "maxTimeoutSeconds": 60,
            "extra": {"feePayer": FEE_PAYER, "usdc_token_account": TOKEN_ACCOUNT, "memo": MEMO}}
    if "extra" in over:
        base["extra"] = over.pop("extra")
    else:
        base["extra"] = dict(base["extra"])
    return _apply(base, over)


def v2_header(accepts=DEFAULT, url=URL, **top):
    """A decoded v2 PAYMENT-REQUIRED object; resource.url defaults to the called URL."""
    obj = {"x402Version": 2, "error": "PAYMENT-SIGNATURE header is required",
           "resource": {"url": url, "description": DESCRIPTION, "mimeType": "application/json"},
           "accepts": [v2_accept()] if accepts is DEFAULT else accepts}
    return _apply(obj, top)


def jtext(value):
    """Compact JSON text as a JavaScript server would send it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def b64(data):
    return base64.b64encode(data).decode("ascii")


def enc(value, trail=0):
    """Standard padded base64 of the JSON text of `value` (+ `trail` trailing JSON spaces)."""
    return b64((jtext(value) + " " * trail).encode("utf-8"))


def enc_mod(value, mod, min_trail=0):
    """enc() with trailing JSON spaces (at least min_trail) so the byte length is == mod (mod 3):
    0 gives no '=', 1 gives '==', 2 gives '='."""
    for trail in range(min_trail, min_trail + 3):
        if len((jtext(value) + " " * trail).encode("utf-8")) % 3 == mod:
            return enc(value, trail)
    raise AssertionError


def sub_once(text, old, new):
    """Replace exactly one occurrence of `old` (a raw JSON edit)."""
    assert text.count(old) == 1, (old, text.count(old))
    return text.replace(old, new)


def resp(body=DEFAULT, header=DEFAULT, status=402):
    """A captured response. body: dict/list -> JSON text; str -> text; bytes -> base64;
    OVER_CAP. header: dict -> enc(); str -> the raw header text; None -> no header."""
    if body is DEFAULT:
        body = v1_body()
    if header is DEFAULT:
        header = v2_header()
    if body is OVER_CAP:
        body_out = {"over_cap": True}
    elif isinstance(body, bytes):
        body_out = {"base64": b64(body)}
    elif isinstance(body, str):
        body_out = {"text": body}
    else:
        body_out = {"text": jtext(body)}
    if "text" in body_out:
        assert len(body_out["text"].encode("utf-8")) <= BODY_CAP
    return {"outcome": "response", "status": status,
            "payment_required": enc(header) if isinstance(header, dict) else header,
            "body": body_out}


def header_of_size(size, header=DEFAULT, inner_space=False):
    """A PAYMENT-REQUIRED value of exactly `size` bytes: the v2 header with its resource
    description padded so the base64 text (unpadded length a multiple of 4) fits; with
    `inner_space`, one ASCII space inside the value makes up the last byte (forgiving base64
    drops it, so the value would decode were it within the cap)."""
    obj = v2_header() if header is DEFAULT else header
    text_size = size - 1 if inner_space else size
    assert text_size % 4 == 0
    fill = text_size // 4 * 3 - len(jtext(obj).encode("utf-8"))
    obj = json.loads(jtext(obj))
    obj["resource"]["description"] += "x" * fill
    value = enc(obj)
    assert len(value) == text_size and forgiving_base64(value) is not None
    if inner_space:
        value = value[: text_size // 2] + " " + value[text_size // 2:]
    assert len(value.encode("utf-8")) == size
    return value


def challenge(body_memo=MEMO, header_memo=MEMO, status=402):
    """A realistic challenge carrying the given memos (DROP = that leg carries no memo)."""
    return resp(body=v1_body([v1_accept(x_memo=body_memo)]),
                header=v2_header([v2_accept(x_memo=header_memo)]), status=status)


def deep(n):
    return "[" * n + "]" * n


# ======================================================================================
# The case table.
# ======================================================================================

CASES = []


def check(case_id, want, note, fetch, url=URL, prov="synthetic", reason=None):
    state, factors, decided = grade_check(url, fetch)
    assert state == want, (case_id, state, want)
    assert factors.get("reason") == reason, (case_id, factors.get("reason"), reason)
    _add(case_id, "check", prov, note, url, [fetch], state, factors, decided)


def memo(case_id, want, note, f1, f2, url=URL, prov="synthetic", reason=None):
    state, factors, decided = grade_memo(url, f1, f2)
    assert state == want, (case_id, state, want)
    assert factors.get("reason") == reason, (case_id, factors.get("reason"), reason)
    _add(case_id, "memo", prov, note, url, [f1, f2], state, factors, decided)


def _add(case_id, op, prov, note, url, fetches, state, factors, decided):
    assert re.fullmatch(r"(check|memo)-[a-z0-9]+(-[a-z0-9]+)*", case_id) and case_id.startswith(op + "-")
    assert case_id not in {c["id"] for c in CASES}, case_id
    assert re.match(r"https?://[a-z0-9.-]+\.example(/|:|\?|$)", url), url
    CASES.append({"id": case_id, "op": op, "provenance": prov, "note": note, "called_url": url,
                  "fetches": fetches, "expected": {"state": state, "factors": factors, "decided_by": decided}})


def build_check_cases():
    # --- POPULATED and spec-shaped (constructed) -----------------------------------------
    check("check-populated-v1-v2", "POPULATED",
          "The realistic fleet challenge (v1 body, v2 header, equal legs) grades POPULATED.", resp())
    spec_v1 = v1_accept(resource=SPEC_URL, description="Access to premium market data")
    spec_v2 = v2_header(url=SPEC_URL)
    spec_v2["resource"]["description"] = "Access to premium market data"
    check("check-constructed-spec-solana-populated", "POPULATED",
          "x402 v1 PaymentRequirements and v2 PAYMENT-REQUIRED example shapes with Solana values and fleet extras.",
          resp(v1_body([spec_v1]), spec_v2), url=SPEC_URL, prov="constructed")
    bare_v1 = {"scheme": "exact", "network": "solana", "maxAmountRequired": AMOUNT, "resource": SPEC_URL,
               "description": "Access to premium market data", "mimeType": "application/json",
               "payTo": PAY_TO, "maxTimeoutSeconds": 60, "asset": USDC, "extra": {"feePayer": FEE_PAYER}}
    bare_v2 = v2_header([v2_accept(x_usdc_token_account=DROP, x_memo=DROP)], url=SPEC_URL)
    check("check-constructed-spec-v1-max-amount-only", "UNCONFIGURED",
          "The x402 v1 example shape (maxAmountRequired only, extra.feePayer only) lacks amount, token account and memo.",
          resp(v1_body([bare_v1]), bare_v2), url=SPEC_URL, prov="constructed")
    check("check-constructed-spec-v2-header-empty-body", "UNCONFIGURED",
          "x402 v2 example PAYMENT-REQUIRED with an empty JSON object body: no body leg, header still graded.",
          resp({}, bare_v2), url=SPEC_URL, prov="constructed")
    check("check-constructed-spec-v1-body-no-header", "HEADER-MISSING",
          "A v1-only server (x402 v1 example body shape, no PAYMENT-REQUIRED header) grades HEADER-MISSING.",
          resp(v1_body([bare_v1]), None), url=SPEC_URL, prov="constructed")
    check("check-constructed-spec-v2-other-resource", "RESOURCE-MISMATCH",
          "x402 v2 example header whose resource.url names a different endpoint than the one called.",
          resp({}, bare_v2), prov="constructed")
    check("check-v1-body-without-memo", "UNCONFIGURED",
          "A v1 body without a memo while the v2 header carries one: memo absent, memo_equal false.",
          resp(v1_body([v1_accept(x_memo=DROP)])))

    # --- NOT-A-402 ------------------------------------------------------------------------
    check("check-not402-fetch-failed", "NOT-A-402", "A failed fetch captures nothing: status null, every leg absent.",
          FAILED, reason="fetch_failed")
    check("check-not402-timeout", "NOT-A-402", "A timed-out fetch captures nothing and names reason timeout.",
          TIMEOUT, reason="timeout")
    check("check-not402-status-200-perfect-challenge", "NOT-A-402",
          "A perfect challenge served with status 200 is NOT-A-402, yet every factor is still computed.",
          resp(status=200), reason="status_not_402")
    check("check-not402-status-200-html", "NOT-A-402", "A plain 200 HTML page without a header.",
          resp("<!doctype html><title>ok</title>", None, 200), reason="status_not_402")
    check("check-not402-status-301-redirect", "NOT-A-402",
          "A 301 redirect is graded as received (never followed): status_not_402.",
          resp("Moved Permanently", None, 301), reason="status_not_402")
    check("check-not402-status-302-redirect-empty-body", "NOT-A-402",
          "A 302 redirect with an empty body is graded as received.", resp("", None, 302), reason="status_not_402")
    check("check-not402-status-500", "NOT-A-402", "A 500 error page.",
          resp('{"error":"internal"}', None, 500), reason="status_not_402")
    check("check-not402-status-401-header-only", "NOT-A-402",
          "A 401 carrying a perfect PAYMENT-REQUIRED header is still not a 402.",
          resp("", DEFAULT, 401), reason="status_not_402")
    check("check-not402-status-404-resource-other", "NOT-A-402",
          "NOT-A-402 wins over RESOURCE-MISMATCH; resource_equal is still reported false.",
          resp(v1_body([v1_accept(resource="https://seller.example/other")]), DEFAULT, 404),
          reason="status_not_402")
    check("check-not402-over-cap-402", "NOT-A-402",
          "A 402 whose body exceeded the cap: body absent, header still graded, reason body_over_cap.",
          resp(OVER_CAP), reason="body_over_cap")
    check("check-not402-over-cap-402-no-header", "NOT-A-402", "An over-cap 402 body without a header.",
          resp(OVER_CAP, None), reason="body_over_cap")
    check("check-not402-over-cap-status-200", "NOT-A-402",
          "Over cap and status 200: status_not_402 comes before body_over_cap.",
          resp(OVER_CAP, DEFAULT, 200), reason="status_not_402")
    check("check-not402-over-cap-header-over-cap", "NOT-A-402",
          "Body and header both over their caps: reason body_over_cap, header_over_cap true.",
          resp(OVER_CAP, header_of_size(HEADER_CAP + 4)), reason="body_over_cap")
    check("check-not402-status-200-header-over-cap", "NOT-A-402",
          "A 200 whose header is over its cap: status_not_402 first, the header factors still printed.",
          resp(DEFAULT, header_of_size(HEADER_CAP + 4), 200), reason="status_not_402")
    check("check-not402-status-200-overlong-description", "NOT-A-402",
          "Factors are computed whatever the status: an overlong description on a 200 is still flagged.",
          resp(v1_body([v1_accept(description="d" * 600)]), DEFAULT, 200), reason="status_not_402")

    # --- RESOURCE-MISMATCH ----------------------------------------------------------------
    other = "https://seller.example/api/forecast"
    check("check-mismatch-body-resource-header-missing", "RESOURCE-MISMATCH",
          "RESOURCE-MISMATCH wins over HEADER-MISSING.", resp(v1_body([v1_accept(resource=other)]), None))
    check("check-mismatch-header-url-only", "RESOURCE-MISMATCH",
          "Body resource equal, header resource.url different: mismatch via the header alone.",
          resp(header=v2_header(url=other)))
    check("check-mismatch-header-url-body-resource-absent", "RESOURCE-MISMATCH",
          "Header resource.url different and no body resource.",
          resp(v1_body([v1_accept(resource=DROP)]), v2_header(url=other)))
    check("check-mismatch-trailing-slash", "RESOURCE-MISMATCH",
          "An otherwise POPULATED challenge whose body resource adds a trailing slash.",
          resp(v1_body([v1_accept(resource=URL + "/")])))
    check("check-mismatch-host-case", "RESOURCE-MISMATCH", "Resource differing only in host case (no case folding).",
          resp(v1_body([v1_accept(resource="https://SELLER.example/api/weather")])))
    check("check-mismatch-scheme-http", "RESOURCE-MISMATCH", "Resource with http where https was called.",
          resp(v1_body([v1_accept(resource="http://seller.example/api/weather")])))
    check("check-mismatch-default-port", "RESOURCE-MISMATCH",
          "Resource spelling the default port :443 (plain string equality, no normalisation).",
          resp(v1_body([v1_accept(resource="https://seller.example:443/api/weather")])))
    check("check-mismatch-unicode-host-vs-punycode", "RESOURCE-MISMATCH",
          "The called URL is serialised with a punycode host; a Unicode-host resource differs.",
          resp(v1_body([v1_accept(resource="https://café.example/menu")]), v2_header(url="https://xn--caf-dma.example/menu")),
          url="https://xn--caf-dma.example/menu")
    check("check-mismatch-percent-encoding", "RESOURCE-MISMATCH",
          "The called URL is percent-encoded; a raw-Unicode path in the resource differs.",
          resp(v1_body([v1_accept(resource="https://seller.example/café")]), v2_header(url="https://seller.example/caf%C3%A9")),
          url="https://seller.example/caf%C3%A9")
    check("check-mismatch-header-undecodable", "RESOURCE-MISMATCH",
          "Body resource different and header undecodable: RESOURCE-MISMATCH wins.",
          resp(v1_body([v1_accept(resource=other)]), "not base64!"))
    check("check-mismatch-body-unparseable-header-url", "RESOURCE-MISMATCH",
          "Unparseable body and a decodable header whose resource.url differs.",
          resp("{not json", v2_header(url=other)))
    check("check-mismatch-amounts-only-shape", "RESOURCE-MISMATCH",
          "An amounts-only challenge with a different resource grades RESOURCE-MISMATCH first.",
          resp(v1_body([{"scheme": "exact", "amount": AMOUNT, "resource": other}]),
               v2_header([{"amount": AMOUNT}], url=other)))
    check("check-mismatch-header-url-with-query", "RESOURCE-MISMATCH", "Header resource.url adds a query string.",
          resp(header=v2_header(url=URL + "?city=paris")))

    # --- resource presence / equality without mismatch ------------------------------------
    check("check-resource-header-only-equal", "UNCONFIGURED",
          "Body resource absent, header resource.url equal: resource_present false, resource_equal true.",
          resp(v1_body([v1_accept(resource=DROP)])))
    check("check-resource-header-string-not-object", "POPULATED",
          "Header resource as a string (not an object) carries no resource.url and is ignored.",
          resp(header=v2_header(resource="https://other.example/x")))
    check("check-resource-header-url-empty", "POPULATED", "Header resource.url empty string counts as absent.",
          resp(header=v2_header(url="")))
    check("check-resource-header-url-not-string", "POPULATED", "Header resource.url as a number is absent.",
          resp(header=v2_header(url=7)))
    check("check-resource-body-object", "UNCONFIGURED", "Body resource as an object (not a string) is absent.",
          resp(v1_body([v1_accept(resource={"url": URL})])))
    check("check-resource-body-empty", "UNCONFIGURED", "Body resource empty string is absent.",
          resp(v1_body([v1_accept(resource="")])))
    check("check-resource-absent-both", "UNCONFIGURED", "No resource on either leg: resource_equal null.",
          resp(v1_body([v1_accept(resource=DROP)]), v2_header(resource=DROP)))
    plain = "http://plain.example/quote"
    check("check-resource-http-called-url", "POPULATED", "An http called URL with equal resources on both legs.",
          resp(v1_body([v1_accept(resource=plain)]), v2_header(url=plain)), url=plain)
    query = URL + "?city=paris&units=metric"
    check("check-resource-query-equal", "POPULATED", "A called URL with a query, equal on both legs.",
          resp(v1_body([v1_accept(resource=query)]), v2_header(url=query)), url=query)

    # --- HEADER-MISSING -------------------------------------------------------------------
    check("check-header-missing-perfect-body", "HEADER-MISSING", "A perfect v1 body with no PAYMENT-REQUIRED header.",
          resp(header=None))
    check("check-header-undecodable-perfect-body", "HEADER-MISSING",
          "A perfect body with an undecodable header grades HEADER-MISSING.", resp(header="not base64!"))
    check("check-header-missing-amounts-only-body", "HEADER-MISSING",
          "An amounts-only body without a header: HEADER-MISSING comes before AMOUNTS-ONLY.",
          resp(v1_body([{"scheme": "exact", "amount": AMOUNT, "maxAmountRequired": AMOUNT}]), None))
    check("check-header-missing-body-unparseable", "HEADER-MISSING", "Unparseable body and no header.",
          resp("<html>Payment Required</html>", None))
    check("check-header-empty-value", "HEADER-MISSING", "An empty header value is present but not decodable.",
          resp(header=""))
    check("check-header-base64-of-plain-text", "HEADER-MISSING", "Header is valid base64 of non-JSON text.",
          resp(header=b64(b"payment required")))
    check("check-header-raw-json-not-base64", "HEADER-MISSING",
          "Header carrying raw JSON text instead of base64 fails the alphabet.", resp(header=jtext(v2_header())))
    check("check-header-length-mod4-is-1", "HEADER-MISSING",
          "After whitespace removal a length of 1 mod 4 fails.", resp(header=enc_mod(v2_header(), 0) + "A"))
    qs = v2_header(accepts=[v2_accept()], error="Payment required???")
    assert "/" in enc(qs) and "+" not in enc(v2_header()) and "/" not in enc(v2_header())
    check("check-header-url-safe-alphabet", "HEADER-MISSING",
          "URL-safe base64 containing '_' (standard '/') fails the standard alphabet.",
          resp(header=enc(qs).replace("+", "-").replace("/", "_")))
    check("check-header-url-safe-without-dash-underscore", "POPULATED",
          "A URL-safe encoding that happens to contain no '-' or '_' is identical to standard and decodes.",
          resp(header=enc(v2_header()).replace("+", "-").replace("/", "_")))
    h = enc(v2_header())
    check("check-header-non-ascii-character", "HEADER-MISSING", "A non-ASCII character inside the header text fails.",
          resp(header=h[:40] + "é" + h[40:]))
    two = enc_mod(v2_header(), 1, min_trail=1)
    assert two.endswith("IA==")  # the last byte is a JSON space (0x20): 'IA' then '=='

    check("check-header-single-pad-where-two-canonical", "HEADER-MISSING",
          "One '=' where '==' is canonical leaves length 3 mod 4, so the '=' fails the alphabet.",
          resp(header=two[:-1]))
    check("check-header-padding-mid-string", "HEADER-MISSING", "A '=' before the end fails.",
          resp(header=two + "QQ=="))
    check("check-header-invalid-utf8", "HEADER-MISSING", "Header decodes to bytes that are not UTF-8.",
          resp(header=b64(b'{"x402Version":2,"error":"\xff"}')))
    check("check-header-json-nan", "HEADER-MISSING", "Header JSON containing NaN is not JSON here.",
          resp(header=b64(sub_once(jtext(v2_header()), '"maxTimeoutSeconds":60', '"maxTimeoutSeconds":NaN').encode())))
    check("check-header-json-bom", "HEADER-MISSING", "Header JSON preceded by a UTF-8 byte-order mark.",
          resp(header=b64(b"\xef\xbb\xbf" + jtext(v2_header()).encode())))
    check("check-header-json-lone-surrogate", "HEADER-MISSING", "Header JSON with an unpaired surrogate escape.",
          resp(header=b64(sub_once(jtext(v2_header()), '"error":"PAYMENT-SIGNATURE header is required"',
                                   '"error":"\\udc00"').encode())))
    check("check-header-json-depth-128", "HEADER-MISSING", "Header JSON nested 128 deep is not JSON here.",
          resp(header=b64(sub_once(jtext(v2_header()), '"x402Version":2', '"x402Version":2,"d":' + deep(127)).encode())))

    # --- header decoding that succeeds ----------------------------------------------------
    h = enc(v2_header())
    spaced = " ".join(h[i:i + 16] for i in range(0, len(h), 16))
    spaced = spaced[:20] + "\t" + spaced[20:]
    check("check-header-embedded-spaces-tabs", "POPULATED", "Spaces and a tab inside the base64 are ignored.",
          resp(header=spaced))
    check("check-header-embedded-newlines", "POPULATED", "MIME-style CRLF line breaks every 76 characters are ignored.",
          resp(header="\r\n".join(h[i:i + 76] for i in range(0, len(h), 76))))
    check("check-header-unpadded", "POPULATED", "Base64 with its '==' padding removed decodes.",
          resp(header=two.rstrip("=")))
    check("check-header-leftover-bits-discarded", "POPULATED",
          "Non-zero leftover bits in the final quantum are discarded ('IB==' decodes as 'IA==').",
          resp(header=two[:-3] + "B=="))
    check("check-header-decodes-to-string", "UNCONFIGURED",
          'Header decoding to the JSON string "hello" is decodable but carries no fields.', resp(header=enc("hello")))
    check("check-header-decodes-to-empty-array", "UNCONFIGURED", "Header decoding to [] is decodable, no fields.",
          resp(header=enc([])))
    check("check-header-decodes-to-number", "UNCONFIGURED", "Header decoding to 3 is decodable, no fields.",
          resp(header=enc(3)))
    check("check-header-decodes-to-null", "UNCONFIGURED", "Header decoding to null is decodable, no fields.",
          resp(header=enc(None)))
    check("check-header-accepts-empty", "UNCONFIGURED", "Header accepts [] carries no memo, amount or payTo.",
          resp(header=v2_header([])))
    check("check-header-accepts0-not-object", "UNCONFIGURED", "Header accepts[0] a string carries no fields.",
          resp(header=v2_header(["exact"])))
    check("check-header-accepts-not-array", "UNCONFIGURED", "Header accepts as an object (not an array) is ignored.",
          resp(header=v2_header(v2_accept())))
    check("check-header-memo-top-level-only", "UNCONFIGURED",
          "The header leg has no top-level memo fallback: memo_equal false.",
          resp(header=v2_header([v2_accept(x_memo=DROP)], memo=MEMO)))
    check("check-header-extra-not-object", "UNCONFIGURED", "Header accepts[0].extra a string: header memo absent.",
          resp(header=v2_header([v2_accept(extra="memo:" + MEMO)])))
    check("check-header-json-tiny-number", "POPULATED", "1e-400 is finite (rounds to 0) and stays JSON.",
          resp(header=b64(sub_once(jtext(v2_header()), '"maxTimeoutSeconds":60', '"maxTimeoutSeconds":1e-400').encode())))
    check("check-header-duplicate-key-last-wins", "POPULATED", "Duplicate header keys: the last amount wins.",
          resp(header=b64(sub_once(jtext(v2_header()), '"amount":"10000"', '"amount":"1","amount":"10000"').encode())))

    # --- AMOUNTS-ONLY and the UNCONFIGURED boundary ----------------------------------------
    amounts = {"scheme": "exact", "network": "solana", "maxAmountRequired": AMOUNT, "amount": AMOUNT, "asset": USDC}
    h_amounts = v2_header([{"scheme": "exact", "network": SOLANA_V2, "amount": AMOUNT, "asset": USDC}])
    check("check-amounts-only-basic", "AMOUNTS-ONLY", "Consistent amounts and no recipient, token account or memo.",
          resp(v1_body([amounts]), h_amounts))
    check("check-amounts-only-header-without-amount", "AMOUNTS-ONLY",
          "Header amount absent keeps amounts consistent; amount_equal false does not matter before UNCONFIGURED.",
          resp(v1_body([amounts]), v2_header([{"scheme": "exact"}])))
    check("check-amounts-only-header-carries-payto", "AMOUNTS-ONLY",
          "AMOUNTS-ONLY reads the body leg only; a header payTo makes pay_to_equal false but not UNCONFIGURED.",
          resp(v1_body([amounts]), v2_header([dict(amounts, payTo=PAY_TO)])))
    check("check-amounts-only-with-resource", "AMOUNTS-ONLY", "An equal body resource does not stop AMOUNTS-ONLY.",
          resp(v1_body([dict(amounts, resource=URL)]), h_amounts))
    check("check-amounts-only-empty-strings", "AMOUNTS-ONLY", "Empty payTo, token account and memo are all absent.",
          resp(v1_body([dict(amounts, payTo="", extra={"usdc_token_account": "", "memo": ""})]), h_amounts))
    check("check-amounts-only-header-array", "AMOUNTS-ONLY", "A header decoding to [] is decodable and carries nothing.",
          resp(v1_body([amounts]), enc([])))
    check("check-boundary-recipient-alone", "UNCONFIGURED", "Amounts plus a recipient alone is UNCONFIGURED.",
          resp(v1_body([dict(amounts, payTo=PAY_TO)]), h_amounts))
    check("check-boundary-token-account-alone", "UNCONFIGURED", "Amounts plus a token account alone is UNCONFIGURED.",
          resp(v1_body([dict(amounts, extra={"usdc_token_account": TOKEN_ACCOUNT})]), h_amounts))
    check("check-boundary-memo-alone", "UNCONFIGURED", "Amounts plus an extra.memo alone is UNCONFIGURED.",
          resp(v1_body([dict(amounts, extra={"memo": MEMO})]), h_amounts))
    check("check-boundary-memo-top-level-fallback", "UNCONFIGURED",
          "Amounts plus only a top-level body memo (the fallback) is UNCONFIGURED.",
          resp(v1_body([amounts], memo=MEMO), h_amounts))
    check("check-boundary-amounts-inconsistent", "UNCONFIGURED",
          "Nothing but inconsistent amounts (maxAmountRequired differs) is UNCONFIGURED.",
          resp(v1_body([dict(amounts, maxAmountRequired="20000")]), h_amounts))
    check("check-boundary-nothing-at-all", "UNCONFIGURED", "An accepts[0] with no graded field at all.",
          resp(v1_body([{"scheme": "exact"}]), v2_header([{"scheme": "exact"}])))

    # --- amounts -----------------------------------------------------------------------
    amount_variants = [
        ("number", 10000, "The amount as a JSON number is absent."),
        ("plus-sign", "+10000", 'The amount "+10000" is not digits only.'),
        ("decimal", "1.5", 'The amount "1.5" is not digits only.'),
        ("leading-space", " 10000", 'The amount " 10000" is not digits only.'),
        ("empty", "", "The empty amount is absent."),
        ("arabic-indic-digits", "١٠٠٠٠", "Non-ASCII digits are not ASCII digits: absent."),
    ]
    for name, value, note in amount_variants:
        check(f"check-amount-{name}", "UNCONFIGURED", note, resp(v1_body([v1_accept(amount=value)])))
    check("check-amount-leading-zero", "UNCONFIGURED",
          '"010000" is present but differs from "10000" as a string: inconsistent, amount_equal false.',
          resp(v1_body([v1_accept(amount="010000")])))
    check("check-amount-max-absent", "POPULATED", "maxAmountRequired absent keeps amounts consistent.",
          resp(v1_body([v1_accept(maxAmountRequired=DROP)])))
    check("check-amount-max-different", "UNCONFIGURED", "maxAmountRequired different from amount is inconsistent.",
          resp(v1_body([v1_accept(maxAmountRequired="20000")])))
    check("check-amount-max-non-digit", "POPULATED", 'maxAmountRequired "10000 USDC" counts as absent.',
          resp(v1_body([v1_accept(maxAmountRequired="10000 USDC")])))
    check("check-amount-max-number", "POPULATED", "maxAmountRequired as a JSON number counts as absent.",
          resp(v1_body([v1_accept(maxAmountRequired=10000)])))
    check("check-amount-header-absent", "UNCONFIGURED",
          "Header amount absent: amounts_consistent true but amount_equal false.",
          resp(header=v2_header([v2_accept(amount=DROP)])))
    check("check-amount-header-non-digit", "UNCONFIGURED",
          'Header amount "10000.0" counts as absent: consistent, but amount_equal false.',
          resp(header=v2_header([v2_accept(amount="10000.0")])))
    check("check-amount-header-different", "UNCONFIGURED", "Header amount different: inconsistent, amount_equal false.",
          resp(header=v2_header([v2_accept(amount="20000")])))
    check("check-amount-both-decimal", "UNCONFIGURED",
          'Both legs "1.5": neither carries a digits amount, so amount_equal is null.',
          resp(v1_body([v1_accept(amount="1.5", maxAmountRequired="1.5")]), v2_header([v2_accept(amount="1.5")])))
    check("check-amount-zero", "POPULATED", 'The amount "0" is a digit string and present.',
          resp(v1_body([v1_accept(amount="0", maxAmountRequired="0")]), v2_header([v2_accept(amount="0")])))

    # --- body structure -----------------------------------------------------------------
    for name, first in [("string", "exact"), ("number", 1), ("null", None), ("array", [v1_accept()])]:
        check(f"check-body-accepts0-{name}", "UNCONFIGURED", f"Body accepts[0] as a {name}: no body leg.",
              resp(v1_body([first])))
    check("check-body-accepts-empty", "UNCONFIGURED", "Body accepts an empty array: no body leg.", resp(v1_body([])))
    check("check-body-accepts-object", "UNCONFIGURED", "Body accepts an object (not an array): no body leg.",
          resp(v1_body(v1_accept())))
    check("check-body-top-level-array", "UNCONFIGURED", "A body whose top level is an array is JSON, no body leg.",
          resp([v1_body()]))
    check("check-body-top-level-string", "UNCONFIGURED", "A body that is the JSON string \"hello\" is parseable.",
          resp('"hello"'))
    check("check-body-extra-string-memo-fallback", "UNCONFIGURED",
          "extra a string: its fields are absent, the top-level memo fallback applies, token account absent.",
          resp(v1_body([v1_accept(extra="usdc")], memo=MEMO)))
    check("check-body-extra-null", "UNCONFIGURED", "extra null: token account and memo absent.",
          resp(v1_body([v1_accept(extra=None)])))
    check("check-body-memo-fallback-populated", "POPULATED",
          "No extra.memo; the top-level memo equals the header memo: POPULATED.",
          resp(v1_body([v1_accept(x_memo=DROP)], memo=MEMO)))
    check("check-body-memo-fallback-extra-memo-empty", "POPULATED",
          'extra.memo "" is absent, so the top-level memo fallback applies.',
          resp(v1_body([v1_accept(x_memo="")], memo=MEMO)))
    check("check-body-memo-fallback-needs-accepts0", "UNCONFIGURED",
          "The top-level memo fallback does not apply when accepts[0] is absent.", resp(v1_body([], memo=MEMO)))
    check("check-body-memo-extra-wins", "POPULATED", "extra.memo present wins over a different top-level memo.",
          resp(v1_body(memo="pvm_toplevel_other")))
    check("check-body-memo-extra-number", "UNCONFIGURED", "extra.memo as a number is absent (no fallback present).",
          resp(v1_body([v1_accept(x_memo=12345678)])))

    good = jtext(v1_body())
    check("check-body-invalid-utf8", "UNCONFIGURED", "A body that is not valid UTF-8 is not parseable.",
          resp(sub_once(good, DESCRIPTION, "Current weather\udcff").encode("utf-8", "surrogateescape")))
    check("check-body-utf8-bom", "UNCONFIGURED", "A body starting with a UTF-8 byte-order mark is not JSON here.",
          resp("\ufeff" + good))
    for name, raw, what in [("nan", "NaN", "NaN is not JSON."), ("infinity", "Infinity", "Infinity is not JSON."),
                            ("1e400", "1e400", "1e400 is not finite as a double: not JSON here."),
                            ("negative-1e400", "-1e400", "-1e400 is not finite as a double: not JSON here."),
                            ("huge-integer", "1" + "0" * 400, "A 401-digit integer is not finite as a double.")]:
        check(f"check-body-number-{name}", "UNCONFIGURED", what,
              resp(sub_once(good, '"maxTimeoutSeconds":60', '"maxTimeoutSeconds":' + raw)))
    check("check-body-number-1e-400", "POPULATED", "1e-400 underflows to 0 and is JSON.",
          resp(sub_once(good, '"maxTimeoutSeconds":60', '"maxTimeoutSeconds":1e-400')))
    # the top-level object is depth 1, so a member holding n nested arrays reaches depth n + 1
    check("check-body-depth-127", "POPULATED", "Nesting 127 deep is JSON.",
          resp(sub_once(good, '"x402Version":1', '"x402Version":1,"d":' + deep(126))))
    check("check-body-depth-128", "UNCONFIGURED", "Nesting 128 deep is not JSON here.",
          resp(sub_once(good, '"x402Version":1', '"x402Version":1,"d":' + deep(127))))
    check("check-body-depth-10000", "UNCONFIGURED", "Very deep nesting is rejected, not a crash.",
          resp(sub_once(good, '"x402Version":1', '"x402Version":1,"d":' + deep(10000))))
    check("check-body-lone-surrogate-value", "UNCONFIGURED", 'A string escape "\\ud800" left unpaired is not JSON.',
          resp(sub_once(good, '"error":"X-PAYMENT header is required"', '"error":"\\ud800"')))
    check("check-body-lone-surrogate-key", "UNCONFIGURED", "An unpaired surrogate escape in an object key.",
          resp(sub_once(good, '"error":', '"\\udfff":1,"error":')))
    check("check-body-surrogate-pair-escape", "POPULATED",
          "A paired surrogate escape is one scalar value: description_length 1.",
          resp(sub_once(good, '"' + DESCRIPTION + '"', '"\\ud83c\\udf26"')))
    check("check-body-duplicate-key-last-wins", "POPULATED", "Duplicate payTo keys: the last (correct) one wins.",
          resp(sub_once(good, f'"payTo":"{PAY_TO}"', f'"payTo":"wrong","payTo":"{PAY_TO}"')))
    check("check-body-duplicate-key-last-empty", "UNCONFIGURED", 'Duplicate payTo keys: the last one is "".',
          resp(sub_once(good, f'"payTo":"{PAY_TO}"', f'"payTo":"{PAY_TO}","payTo":""')))
    check("check-body-duplicate-accepts-last-empty", "UNCONFIGURED", "Duplicate accepts keys: the last one is [].",
          resp(good[:-1] + ',"accepts":[]}'))
    check("check-body-trailing-comma", "UNCONFIGURED", "A trailing comma is not JSON.", resp(good[:-1] + ",}"))
    check("check-body-raw-control-character", "UNCONFIGURED", "A raw TAB inside a JSON string is not JSON.",
          resp(sub_once(good, DESCRIPTION, "Current\tweather")))
    check("check-body-trailing-garbage", "UNCONFIGURED", "Text after the JSON value is not JSON.", resp(good + "x"))
    check("check-body-empty-402", "UNCONFIGURED", "An empty 402 body with a decodable header: UNCONFIGURED.",
          resp(""))
    check("check-body-surrounding-whitespace", "POPULATED", "JSON whitespace around the body value is fine.",
          resp("\r\n\t " + good + " \n"))
    spaces = good[:-1] + " " * (BODY_CAP - len(good.encode())) + "}"
    assert len(spaces.encode()) == BODY_CAP
    check("check-body-exactly-65536-bytes-spaces", "POPULATED",
          "A body of exactly 65,536 bytes (padded with JSON spaces) is within the cap.", resp(spaces))
    base = jtext(v1_body(pad=""))
    room = BODY_CAP - len(base.encode())
    padded = sub_once(base, '"pad":""', '"pad":"' + "日" * (room // 3) + "x" * (room % 3) + '"')
    assert len(padded.encode()) == BODY_CAP
    check("check-body-exactly-65536-bytes-multibyte", "POPULATED",
          "A body of exactly 65,536 bytes padded with 3-byte characters is within the cap.", resp(padded))

    # --- description length -------------------------------------------------------------
    for name, text in [("500-e-acute", "é" * 500), ("501-e-acute", "é" * 501), ("501-cjk", "日" * 501),
                       ("501-emoji", "🌦" * 501), ("empty", "")]:
        check(f"check-description-{name}", "POPULATED",
              f"A description of {len(text)} scalar values ({len(text.encode())} UTF-8 bytes).",
              resp(v1_body([v1_accept(description=text)])))
    check("check-description-300-escaped-emoji", "POPULATED",
          "300 emoji as escaped surrogate pairs: 300 scalar values (600 UTF-16 units), not overlong.",
          resp(sub_once(good, '"' + DESCRIPTION + '"', '"' + "\\ud83c\\udf26" * 300 + '"')))
    check("check-description-absent", "POPULATED", "No description: description_length null.",
          resp(v1_body([v1_accept(description=DROP)])))
    check("check-description-number", "POPULATED", "A description that is a number: description_length null.",
          resp(v1_body([v1_accept(description=42)])))
    hdr_long = v2_header()
    hdr_long["resource"]["description"] = "h" * 600
    check("check-description-header-only", "POPULATED",
          "Only the body accepts[0].description is measured; a long header description is ignored.",
          resp(v1_body([v1_accept(description=DROP)]), hdr_long))
    check("check-description-overlong-unconfigured", "UNCONFIGURED",
          "The overlong flag is independent of the state: 501 characters on an UNCONFIGURED challenge.",
          resp(v1_body([v1_accept(description="x" * 501, payTo=DROP)])))

    # --- header-to-body equality ----------------------------------------------------------
    check("check-memo-equal-false-differs", "UNCONFIGURED", "Header memo differs from body memo.",
          resp(header=v2_header([v2_accept(x_memo="pvm_other_memo_value")])))
    check("check-memo-equal-false-case", "UNCONFIGURED", "Memos differing only in case are unequal.",
          resp(header=v2_header([v2_accept(x_memo=MEMO.upper())])))
    check("check-memo-equal-false-header-missing-memo", "UNCONFIGURED", "Body carries a memo, the header does not.",
          resp(header=v2_header([v2_accept(x_memo=DROP)])))
    check("check-memo-equal-false-header-only", "UNCONFIGURED", "Header carries a memo, the body does not.",
          resp(v1_body([v1_accept(x_memo=DROP)])))
    check("check-memo-equal-null-neither", "UNCONFIGURED", "Neither leg carries a memo: memo_equal null.",
          resp(v1_body([v1_accept(x_memo=DROP)]), v2_header([v2_accept(x_memo=DROP)])))
    check("check-pay-to-equal-false-differs", "UNCONFIGURED", "Header payTo differs from body payTo.",
          resp(header=v2_header([v2_accept(payTo="OtherWa11et5vKq8rTnGf2mXzKATAaccount4Yh7Dk")])))
    check("check-pay-to-equal-false-header-missing", "UNCONFIGURED", "Body carries payTo, the header does not.",
          resp(header=v2_header([v2_accept(payTo=DROP)])))
    check("check-pay-to-equal-null-neither", "UNCONFIGURED", "Neither leg carries payTo: pay_to_equal null.",
          resp(v1_body([v1_accept(payTo=DROP)]), v2_header([v2_accept(payTo=DROP)])))

    # --- the header cap -------------------------------------------------------------------
    check("check-header-exactly-16384-bytes", "POPULATED",
          "A PAYMENT-REQUIRED value of exactly 16,384 bytes is within the header cap and decoded.",
          resp(header=header_of_size(HEADER_CAP)))
    check("check-header-16385-bytes-over-cap", "HEADER-MISSING",
          "16,385 bytes (one inner space forgiving base64 would drop): over the header cap, not decoded.",
          resp(header=header_of_size(HEADER_CAP + 1, inner_space=True)))
    check("check-header-over-cap-no-body-memo", "HEADER-MISSING",
          "An over-cap header hides no state: HEADER-MISSING even when the body alone is AMOUNTS-ONLY.",
          resp(v1_body([v1_accept(payTo=DROP, x_usdc_token_account=DROP, x_memo=DROP)]),
               header_of_size(HEADER_CAP + 4)))
    check("check-header-over-cap-resource-mismatch-first", "RESOURCE-MISMATCH",
          "An over-cap header carries no resource; the body's wrong resource still matches rule 2 first.",
          resp(v1_body([v1_accept(resource="https://seller.example/api/forecast")]),
               header_of_size(HEADER_CAP + 4)))


def build_memo_cases():
    m1, m2 = "pvm_3f9a2b7c1d4e5f60", "pvm_8c21d0e94ab7f315"

    # --- BOUND --------------------------------------------------------------------------
    memo("memo-bound-fresh-prefixed", "BOUND", "Fresh prefixed-opaque memos, header equal to body in both fetches.",
         challenge(m1, m1), challenge(m2, m2))
    spec = lambda m: resp(v1_body([v1_accept(resource=SPEC_URL, description="Access to premium market data",
                                             x_memo=m)]),
                          v2_header([v2_accept(x_memo=m)], url=SPEC_URL))
    memo("memo-constructed-spec-solana-bound", "BOUND",
         "x402 v1/v2 example shapes with Solana values and fleet extras, memo regenerated per challenge.",
         spec("pvm_a1b2c3d4e5f6"), spec("pvm_f6e5d4c3b2a1"), url=SPEC_URL, prov="constructed")
    memo("memo-bound-uuid", "BOUND",
         "UUID memos: digit-led is opaque, letter-led (f47ac10b-...) matches the prefixed-opaque pattern.",
         challenge("550e8400-e29b-41d4-a716-446655440000", "550e8400-e29b-41d4-a716-446655440000"),
         challenge("f47ac10b-58cc-4372-a567-0e02b2c3d479", "f47ac10b-58cc-4372-a567-0e02b2c3d479"))
    memo("memo-constructed-v2-header-only-fresh-memo", "MEMO-ABSENT",
         "A v2 server (challenge in PAYMENT-REQUIRED, `{}` as the body) with a fresh header memo: the memo op reads "
         "the body leg, which does not exist (decided_by lists body_leg_present false in both fetches).",
         resp({}, v2_header([v2_accept(x_memo=m1)])), resp({}, v2_header([v2_accept(x_memo=m2)])), prov="constructed")
    memo("memo-bound-short", "BOUND", "Short memos still bind; the format class is a factor only.",
         challenge("abc1", "abc1"), challenge("abc2", "abc2"))
    memo("memo-bound-top-level-fallback", "BOUND",
         "Body memos via the top-level fallback equal header extra.memo in both fetches.",
         resp(v1_body([v1_accept(x_memo=DROP)], memo=m1), v2_header([v2_accept(x_memo=m1)])),
         resp(v1_body([v1_accept(x_memo=DROP)], memo=m2), v2_header([v2_accept(x_memo=m2)])))
    format_pairs = [
        ("7-vs-8-chars", "pv_abcd", "pv_abcde", "Exactly 7 characters is short; exactly 8 is prefixed-opaque."),
        ("multibyte", "日日日日日日日", "日日日日日日日日",
         "Length counts scalar values: 7 CJK characters (21 bytes) short, 8 opaque."),
        ("dot", "pvm.abcdef12", "pvm.abcdef13", "A dot is outside the pattern: opaque."),
        ("leading-digit", "1pvm_abcdef", "2pvm_abcdef", "A leading digit is outside the pattern: opaque."),
        ("one-char-prefix", "a-bcdefgh", "b-bcdefgh", "A 1-character prefix before the separator: opaque."),
        ("trailing-newline", "pvm_abcdef1\n", "pvm_abcdef2", "A trailing newline defeats the full match: opaque."),
        ("separator-edges", "pvmabcd-", "pvm__abc",
         "Nothing after the separator is opaque; a doubled underscore is prefixed-opaque."),
        ("two-char-prefix", "ab-cdefg", "p1_abcde", "Two-character prefixes (letter+digit allowed) at length 8."),
        ("non-ascii-suffix", "pvm_日日日日", "PVM-ABCDEFGH", "Non-ASCII after the separator is opaque; uppercase is fine."),
        ("no-separator", "abcdefgh", "ABCDEFGHIJKLMNOP", "Letters without a separator are opaque."),
    ]
    for name, a, b, note in format_pairs:
        memo(f"memo-bound-format-{name}", "BOUND", note, challenge(a, a), challenge(b, b))

    # --- MEMO-REUSED --------------------------------------------------------------------
    memo("memo-reused-static-prefixed", "MEMO-REUSED", "The same memo on every leg of both fetches.",
         challenge(m1, m1), challenge(m1, m1))
    memo("memo-reused-short", "MEMO-REUSED", 'A static short memo "abc" on every leg.', challenge("abc", "abc"),
         challenge("abc", "abc"))
    memo("memo-reused-top-level-fallback", "MEMO-REUSED", "A static top-level body memo mirrored in the header.",
         resp(v1_body([v1_accept(x_memo=DROP)], memo=m1)), resp(v1_body([v1_accept(x_memo=DROP)], memo=m1)))
    memo("memo-constructed-reused-spec-shape", "MEMO-REUSED",
         "x402 v1/v2 example shapes with Solana values and a hard-coded memo reused across challenges.",
         spec("order-1234-static"), spec("order-1234-static"), url=SPEC_URL, prov="constructed")

    # --- LEG-MISMATCH -------------------------------------------------------------------
    memo("memo-reused-body-but-header-differs", "LEG-MISMATCH",
         "Static body memo with different header memos: LEG-MISMATCH comes before MEMO-REUSED.",
         challenge(m1, m2), challenge(m1, "pvm_0000aaaa1111bbbb"))
    memo("memo-leg-mismatch-header-differs-fetch2", "LEG-MISMATCH", "Fetch 2's header memo differs from its body memo.",
         challenge(m1, m1), challenge(m2, "pvm_0000aaaa1111bbbb"))
    memo("memo-leg-mismatch-header-memo-missing-fetch1", "LEG-MISMATCH", "Fetch 1's header carries no memo.",
         challenge(m1, DROP), challenge(m2, m2))
    memo("memo-leg-mismatch-header-undecodable-fetch2", "LEG-MISMATCH", "Fetch 2's header is not decodable.",
         challenge(m1, m1), resp(v1_body([v1_accept(x_memo=m2)]), "%%%"))
    memo("memo-leg-mismatch-no-header", "LEG-MISMATCH", "Fresh body memos but no PAYMENT-REQUIRED header at all.",
         resp(v1_body([v1_accept(x_memo=m1)]), None), resp(v1_body([v1_accept(x_memo=m2)]), None))
    memo("memo-leg-mismatch-header-static-body-fresh", "LEG-MISMATCH", "Fresh body memos under a static header memo.",
         challenge(m1, "pvm_header_static"), challenge(m2, "pvm_header_static"))
    memo("memo-leg-mismatch-before-completion", "LEG-MISMATCH",
         "Body memo in fetch 1 only, header memo in fetch 2 only: equality false beats the completion rule.",
         challenge(m1, m1), challenge(DROP, m2))
    memo("memo-leg-mismatch-header-top-level-memo", "LEG-MISMATCH",
         "A header memo at the top level is not read (no header fallback).",
         resp(v1_body([v1_accept(x_memo=m1)]), v2_header([v2_accept(x_memo=DROP)], memo=m1)), challenge(m2, m2))

    # --- MEMO-ABSENT --------------------------------------------------------------------
    memo("memo-absent-no-memo-anywhere", "MEMO-ABSENT", "No memo on any leg of either fetch.",
         challenge(DROP, DROP), challenge(DROP, DROP))
    memo("memo-absent-header-memo-only", "MEMO-ABSENT",
         "Header memos only: MEMO-ABSENT (body leg) comes before LEG-MISMATCH.", challenge(DROP, m1), challenge(DROP, m2))
    memo("memo-absent-body-unparseable", "MEMO-ABSENT", "Unparseable bodies carry no memo.",
         resp("{", v2_header([v2_accept(x_memo=m1)])), resp("{", v2_header([v2_accept(x_memo=m2)])))
    memo("memo-absent-empty-strings", "MEMO-ABSENT", "Empty-string memos are absent.", challenge("", ""), challenge("", ""))
    memo("memo-absent-one-fetch-fetch2", "MEMO-ABSENT",
         "A bound fetch 1 and a memo-less fetch 2: completion rule memo_absent_one_fetch.",
         challenge(m1, m1), challenge(DROP, DROP), reason="memo_absent_one_fetch")
    memo("memo-absent-one-fetch-fetch1", "MEMO-ABSENT", "A memo-less fetch 1 and a bound fetch 2.",
         challenge(DROP, DROP), challenge(m2, m2), reason="memo_absent_one_fetch")
    memo("memo-absent-one-fetch-empty-accepts", "MEMO-ABSENT",
         "Fetch 2 has accepts [] on both legs: empty census, top-level memo fallback not applied.",
         challenge(m1, m1), resp(v1_body([], memo=m2), v2_header([])), reason="memo_absent_one_fetch")

    # --- NOT-A-402 ----------------------------------------------------------------------
    memo("memo-not402-fetch1-timeout", "NOT-A-402", "Fetch 1 timed out; fetch 2 is still graded.", TIMEOUT, challenge(m2, m2))
    memo("memo-not402-fetch1-failed", "NOT-A-402", "Fetch 1 failed.", FAILED, challenge(m2, m2))
    memo("memo-not402-fetch2-timeout", "NOT-A-402", "Fetch 2 timed out.", challenge(m1, m1), TIMEOUT)
    memo("memo-not402-fetch2-failed", "NOT-A-402", "Fetch 2 failed.", challenge(m1, m1), FAILED)
    memo("memo-not402-fetch2-status-200", "NOT-A-402",
         "Fetch 2 answered 200 with the same memo: NOT-A-402 wins over MEMO-REUSED.", challenge(m1, m1), challenge(m1, m1, 200))
    memo("memo-not402-fetch2-over-cap", "NOT-A-402", "Fetch 2's 402 body exceeded the cap; its header is still graded.",
         challenge(m1, m1), resp(OVER_CAP, v2_header([v2_accept(x_memo=m2)])))
    memo("memo-not402-fetch1-over-cap-no-header", "NOT-A-402", "Fetch 1's 402 body exceeded the cap and had no header.",
         resp(OVER_CAP, None), challenge(m2, m2))
    memo("memo-not402-fetch1-redirect", "NOT-A-402", "Fetch 1 was a 302 redirect (not followed).",
         resp("", None, 302), challenge(m2, m2))
    memo("memo-not402-fetch1-status-500", "NOT-A-402", "Fetch 1 was a 500.", resp("oops", None, 500), challenge(m2, m2))
    memo("memo-not402-both-failed", "NOT-A-402", "Both fetches failed.", FAILED, TIMEOUT)

    # --- the header cap -------------------------------------------------------------------
    big = lambda m: resp(v1_body([v1_accept(x_memo=m)]),
                         header_of_size(HEADER_CAP + 4, v2_header([v2_accept(x_memo=m)])))
    memo("memo-header-over-cap-fetch1", "LEG-MISMATCH",
         "Fetch 1's header is over its cap: its header memo is absent, so equality is false there.",
         big(m1), challenge(m2, m2))
    memo("memo-header-over-cap-both-no-body-memo", "MEMO-ABSENT",
         "Both headers over the cap and no body memo: MEMO-ABSENT, header memos not gradable.",
         resp(v1_body([v1_accept(x_memo=DROP)]), header_of_size(HEADER_CAP + 4)),
         resp(v1_body([v1_accept(x_memo=DROP)]), header_of_size(HEADER_CAP + 8)))
    memo("memo-header-exactly-16384-bytes-both", "BOUND",
         "Headers of exactly 16,384 bytes in both fetches are within the cap: BOUND.",
         resp(v1_body([v1_accept(x_memo=m1)]), header_of_size(HEADER_CAP, v2_header([v2_accept(x_memo=m1)]))),
         resp(v1_body([v1_accept(x_memo=m2)]), header_of_size(HEADER_CAP, v2_header([v2_accept(x_memo=m2)]))))

    # --- correlation census ---------------------------------------------------------------
    memo("memo-census-extra-not-object", "BOUND",
         "extra a string: census lists accepts[0] names only; the top-level memo feeds the body leg.",
         resp(v1_body([v1_accept(extra="none")], memo=m1), v2_header([v2_accept(x_memo=m1)])),
         resp(v1_body([v1_accept(extra="none")], memo=m2), v2_header([v2_accept(x_memo=m2)])))
    dup = lambda m: resp(v1_body([v1_accept(memo=m, nonce="n1", x_memo=m, x_nonce="n2")]),
                         v2_header([v2_accept(memo=m, x_memo=m)]))
    memo("memo-census-duplicate-names", "BOUND",
         "Names present both in accepts[0] and in extra are listed once.", dup(m1), dup(m2))
    odd = lambda m: resp(v1_body([{"amount": AMOUNT, "Zeta": 1, "_id": "x", "é": 1, "ä": 2, "payTo": PAY_TO,
                                   "extra": {"memo": m, "Memo": "M", "~x": 0}}]),
                         v2_header([{"extra": {"memo": m}}]))
    memo("memo-census-code-point-order", "BOUND",
         "Census names sort by Unicode code point (uppercase, underscore, lowercase, tilde, Latin-1).", odd(m1), odd(m2))
    dupkey = lambda m: resp(sub_once(jtext(v1_body([v1_accept(x_memo=m)])), '"scheme":"exact"',
                                     '"nonce":1,"scheme":"exact","nonce":2'),
                            v2_header([v2_accept(x_memo=m)]))
    memo("memo-census-duplicate-json-keys", "BOUND", "A duplicated JSON key is one name (last value wins).",
         dupkey(m1), dupkey(m2))
    memo("memo-census-header-array", "MEMO-ABSENT",
         "A header decoding to [] is decodable with an empty census; the body carries no memo.",
         resp(v1_body([v1_accept(x_memo=DROP)]), enc([])), resp(v1_body([v1_accept(x_memo=DROP)]), enc({})))


# ======================================================================================
# Submitted-URL cases (rule 20): the refusals this revision adds, and their order.
# ======================================================================================

POLICY_CASES = []


def policy_verdict(submitted):
    """Rule 20 and the specification's scheme rule, in url_policy.refusals order, for strings that
    need no WHATWG serialisation: each accepted one is already its own called URL."""
    scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", submitted)
    http = scheme is not None and scheme.group(1).lower() in ("http", "https")
    if "://" not in submitted and not http:
        return {"refusal": "scheme_missing"}
    if not http:
        return {"refusal": "scheme_not_http"}
    if "#" in submitted:
        return {"refusal": "fragment_in_url"}
    return {"called_url": submitted}


def policy(case_id, want, note, submitted):
    verdict = policy_verdict(submitted)
    assert verdict == want, (case_id, verdict, want)
    assert re.fullmatch(r"policy-[a-z0-9]+(-[a-z0-9]+)*", case_id), case_id
    assert case_id not in {c["id"] for c in POLICY_CASES}, case_id
    POLICY_CASES.append({"id": case_id, "note": note, "submitted": submitted, "expected": verdict})


def build_policy_cases():
    fragment, missing = {"refusal": "fragment_in_url"}, {"refusal": "scheme_missing"}
    policy("policy-fragment-named", fragment, "A named fragment is never sent, so it is refused free.",
           URL + "#today")
    policy("policy-fragment-empty", fragment, "An empty fragment (a bare #) is a fragment too.", URL + "#")
    policy("policy-fragment-after-query", fragment, "A fragment after a query is refused; the query alone is not.",
           URL + "?city=oslo#now")
    policy("policy-fragment-before-address-rule", fragment,
           "fragment_in_url comes before address_not_public in url_policy.refusals.", "http://127.0.0.1:3000/x#a")
    policy("policy-query-accepted", {"called_url": URL + "?city=oslo"},
           "A query is part of the called URL; only the fragment is refused.", URL + "?city=oslo")
    policy("policy-scheme-missing-localhost-port", missing,
           "host:port/path reads as the scheme 'localhost' to the WHATWG parser: refused as scheme_missing.",
           "localhost:3000/weather")
    policy("policy-scheme-missing-ip-port", missing,
           "An IPv4 address with a port and no scheme does not parse: refused as scheme_missing.",
           "127.0.0.1:3000/weather")
    policy("policy-scheme-missing-bare-host", missing, "A bare host and path has no scheme.",
           "seller.example/api/weather")
    policy("policy-scheme-missing-other-scheme", missing,
           "Another scheme written without :// is scheme_missing, not scheme_not_http.", "mailto:ops@seller.example")
    policy("policy-scheme-not-http", {"refusal": "scheme_not_http"},
           "A scheme written with :// that is not http or https is scheme_not_http.", "ftp://seller.example/x")


# ======================================================================================
# Assembly, pin, write, check, self-test.
# ======================================================================================

def build():
    CASES.clear()
    build_check_cases()
    build_memo_cases()
    POLICY_CASES.clear()
    build_policy_cases()
    obj = {"id": "payability-corpus/v1", "criteria": "payability/v1", "criteria_revision": "1.5.0",
           "generator": "corpus/gen_corpus.py", "cases": list(CASES), "policy_cases": list(POLICY_CASES)}
    obj["sha256"] = pin(obj)
    return obj


def assert_no_float(value):
    stack = [value]
    while stack:
        v = stack.pop()
        assert not isinstance(v, float), v
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)


def pin(obj):
    """SHA-256 of the RFC 8785 canonical form (ASCII keys, integers only) without sha256."""
    body = {k: v for k, v in obj.items() if k != "sha256"}
    assert_no_float(body)
    canon = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(canon).hexdigest()


def serialise(obj):
    return (json.dumps(obj, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def main(argv):
    if "--self-test" in argv:
        self_test()
        print("self-test: ok")
        return 0
    obj = build()
    data = serialise(obj)
    summary = f"corpus: {len(obj['cases'])} cases, {len(obj['policy_cases'])} policy cases, pin {obj['sha256']}"
    if "--check" in argv:
        try:
            on_disk = OUT.read_bytes()
        except FileNotFoundError:
            print(f"corpus: {OUT.name} is missing")
            return 1
        if on_disk == data:
            print(summary)
            return 0
        try:
            disk_cases = {c.get("id"): c for c in json.loads(on_disk)["cases"]}
        except (ValueError, KeyError, TypeError, AttributeError):
            print(f"corpus: {OUT.name} is not a readable corpus")
            return 1
        disk_cases.update({c.get("id"): c for c in json.loads(on_disk).get("policy_cases", [])})
        fresh = {c["id"]: c for c in obj["cases"] + obj["policy_cases"]}
        differ = sorted(i for i in set(disk_cases) | set(fresh) if disk_cases.get(i) != fresh.get(i))
        for case_id in differ:
            print(f"differs: {case_id}")
        if not differ:
            print("corpus: cases equal but the file bytes differ (top-level fields, order or formatting)")
        return 1
    OUT.write_bytes(data)
    print(summary)
    return 0


def self_test():
    fb = forgiving_base64
    vectors = {"QQ==": b"A", "QQ": b"A", "QQ=": None, "Q": None, "QUJD": b"ABC", "Q U\nJ\tD\r\x0c": b"ABC",
               "QR==": b"A", "QUI=": b"AB", "QUI": b"AB", "QUI==": None, "Q-==": None, "Q_": None, "": b"",
               "====": None, "QQ===": None, "QQ=A": None, "QQ==QQ==": None, "Qé==": None, "Q\u00a0Q": None,
               "+/8=": b"\xfb\xff"}
    for text, want in vectors.items():
        assert fb(text) == want, (text, fb(text), want)

    formats = {None: "absent", "": "short", "abc": "short", "pv_abcd": "short", "pv_abcde": "prefixed-opaque",
               "a-bcdefgh": "opaque", "ab-cdefg": "prefixed-opaque", "1pvm_abcdef": "opaque",
               "pvm.abcdef12": "opaque", "pvm_abcdef\n": "opaque", "日日日日日日日": "short",
               "日日日日日日日日": "opaque", "pvm__abc": "prefixed-opaque", "pvmabcd-": "opaque",
               "p1_abcde": "prefixed-opaque", "pvm_日日日日": "opaque", "PVM-ABCDEFGH": "prefixed-opaque",
               "abcdefgh": "opaque", "pvm-_-_": "short", "pvm-_-_-": "prefixed-opaque", "pvm_abcdéf": "opaque"}
    for m, want in formats.items():
        assert memo_format(m) == want, (m, memo_format(m), want)

    ok = lambda raw: parse_json(raw)[0]
    assert not ok(b"1e400") and not ok(b"-1e400") and ok(b"1e-400") and ok(b"-0")
    assert not ok(b"NaN") and not ok(b"[Infinity]") and not ok(b"-Infinity")
    assert not ok(("1" + "0" * 400).encode()) and ok(("1" + "0" * 300).encode())
    assert not ok(b"1" + b"0" * 5000)  # beyond Python's int-string limit: still just "not finite"
    assert not ok(b'"\\ud800"') and not ok(b'{"\\udc00":1}') and not ok(b'"\\ude00\\ud83d"')
    assert parse_json(b'"\\ud83d\\ude00"') == (True, "\U0001F600")
    assert ok(deep(127).encode()) and not ok(deep(128).encode()) and not ok(deep(100000).encode())
    assert ok(b'{"a":"[[[[' + b"[" * 200 + b'"}')  # brackets inside strings do not count
    assert ok(b'"\\"[[["') and max_nesting('"\\\\"') == 0
    assert not ok(b"\xef\xbb\xbf{}") and not ok(b"\xff") and not ok(b"\xed\xa0\x80") and not ok(b"")
    assert not ok(b"[1,]") and not ok(b"{'a':1}") and not ok(b'"a\tb"') and not ok(b"01") and not ok(b"{}x")
    assert parse_json(b'{"a":1,"a":2}') == (True, {"a": 2})
    for value in (b"null", b"true", b"3", b'"x"', b"[]", b" {} "):
        assert ok(value), value

    assert amount_present("10000") and amount_present("0") and amount_present("010000")
    for bad in ("+5", "1.5", " 5", "", "5 ", "١٠", "10000\n", 10000, None, True):
        assert amount_present(bad) is None, bad
    assert present(" ") == " " and present("") is None and present(True) is None and present(0) is None
    assert equality(None, None) is None and equality("a", "a") is True
    assert equality("a", None) is False and equality(None, "a") is False and equality("a", "b") is False
    assert census({"b": 1, "extra": {"a": 1, "b": 2}, "A": 0}) == ["A", "a", "b", "extra"]
    assert census({"extra": "x", "z": 1}) == ["extra", "z"] and census(None) == []

    assert policy_verdict("HTTPS://seller.example/") == {"called_url": "HTTPS://seller.example/"}
    assert policy_verdict("https:/x#") == {"refusal": "fragment_in_url"}
    assert policy_verdict("file:///etc/passwd") == {"refusal": "scheme_not_http"}
    assert policy_verdict("x") == {"refusal": "scheme_missing"}

    state, f, d = grade_check(URL, resp())
    assert d == {"step": 6, "factors": []}
    assert state == "POPULATED" and f["description_length"] == len(DESCRIPTION) and "reason" not in f
    state, f, d = grade_check(URL, FAILED)
    assert d == {"step": 1, "factors": [{"factor": "fetch_ok", "value": False}, {"factor": "status", "value": None}]}
    assert state == "NOT-A-402" and f["reason"] == "fetch_failed" and f["status"] is None
    assert f["resource_equal"] is None and f["description_length"] is None and not f["header_present"]
    state, f, d = grade_check(URL, resp(OVER_CAP))
    assert d == {"step": 1, "factors": [{"factor": "body_over_cap", "value": True}]}
    assert f["reason"] == "body_over_cap" and f["fetch_ok"] and f["header_decodable"] and f["memo_equal"] is False
    state, f, _ = grade_check(URL, resp(header=header_of_size(HEADER_CAP)))
    assert state == "POPULATED" and f["header_decodable"] and not f["header_over_cap"]
    state, f, d = grade_check(URL, resp(header=header_of_size(HEADER_CAP + 1, inner_space=True)))
    assert d == {"step": 3, "factors": [{"factor": "header_over_cap", "value": True}, {"factor": "header_decodable", "value": False}]}
    assert state == "HEADER-MISSING" and f["header_over_cap"] and f["header_present"]
    assert not f["header_decodable"] and f["memo_equal"] is False and f["resource_equal"] is True
    assert not grade_check(URL, resp(header=None))[1]["header_over_cap"]
    state, f, d = grade_memo(URL, challenge("pvm_aaaa1111", "pvm_aaaa1111"), challenge("pvm_bbbb2222", "pvm_bbbb2222"))
    assert d["step"] == 5 and [e["factor"] for e in d["factors"]] == ["memo_equality_fetch1", "memo_equality_fetch2", "body_memos_unique"]
    assert state == "BOUND" and f["body_memos_unique"] is True and f["header_freshness_class"] == "regenerated"
    state, f, d = grade_memo(URL, challenge("x", "x"), challenge(DROP, DROP))
    assert d == {"step": 6, "factors": [{"factor": "body_memo_present", "value": False, "fetch": 2}]}
    assert (state, f["reason"], f["body_memos_unique"]) == ("MEMO-ABSENT", "memo_absent_one_fetch", None)
    # A v2 middleware's shape: the challenge in the header, `{}` as the body.
    state, f, d = grade_check(URL, resp(body={"text": "{}"}))
    assert state == "UNCONFIGURED" and d["step"] == 5 and not f["body_leg_present"] and f["body_parseable"]
    assert [e["factor"] for e in d["factors"]] == [
        "body_leg_present", "recipient_present", "token_account_present", "memo_present", "amounts_present",
        "amounts_consistent", "resource_present", "memo_equal", "amount_equal", "pay_to_equal"]
    state, f, d = grade_memo(URL, resp(body={"text": "{}"}), resp(body={"text": "{}"}))
    assert state == "MEMO-ABSENT" and [(e["factor"], e["fetch"]) for e in d["factors"]] == [
        ("body_leg_present", 1), ("body_memo_present", 1), ("body_leg_present", 2), ("body_memo_present", 2)]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
