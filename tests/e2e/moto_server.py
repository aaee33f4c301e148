"""moto's DynamoDB API on loopback, as scripts/test starts it (test code).

    python moto_server.py PORT

Two changes to `moto_server -H 127.0.0.1 -p PORT`, each for a reason a test showed:

* One request at a time. moto_server answers each request on its own thread and moto's
  DynamoDB takes no lock, so two concurrent conditional writes to one item could both pass
  their condition (seen: 2 of 200 concurrent pre-checks allowed). DynamoDB applies each
  conditional write atomically.
* TransactWriteItems keeps, for its rollback, a copy of the items it touches instead of a
  copy of every table it touches. moto 5.2.5 deep-copies each such table before every
  transaction (`copy.deepcopy(self.tables[table_name])`), so a transaction costs time in
  proportion to the table's size: 6.7 ms at 105 rows, 120 ms at 2,005 (measured), and the
  money soak's long form, whose ledger grows by a transaction per paid verdict, ran out of its
  request bounds on the stand-in, not on the service. What a transaction may change is only
  its items; restoring them on a cancelled transaction is the same rollback, item for item.
"""

from __future__ import annotations

import copy
import sys

import moto.dynamodb.models as dynamodb
from moto.dynamodb.models.table import Table
from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import run_simple


class _TablesNotCopied:
    """`copy` as moto's DynamoDB module sees it: a table is "copied" as itself (the items a
    transaction touches are kept by `transact_write_items` below); anything else as `copy`
    copies it."""

    def __getattr__(self, name):
        return getattr(copy, name)

    @staticmethod
    def deepcopy(value, memo=None):
        if isinstance(value, Table):
            return value
        return copy.deepcopy(value, memo)


_moto_transact_write_items = dynamodb.DynamoDBBackend.transact_write_items


def _touched(backend, transact_items):
    """(table, hash key, range key, a copy of the item as it is) for each item the transaction
    names, in order; an operation moto will refuse itself is left to it."""
    touched = []
    for entry in transact_items:
        if len(entry) != 1:
            continue
        _, op = next(iter(entry.items()))
        table = backend.tables.get(op.get("TableName")) if isinstance(op, dict) else None
        if table is None:
            continue
        keys = op.get("Key")
        if keys is None and isinstance(op.get("Item"), dict):
            names = [table.hash_key_attr] + ([table.range_key_attr] if table.range_key_attr else [])
            keys = {name: op["Item"][name] for name in names if name in op["Item"]}
        try:
            hash_key, range_key = backend.get_keys_value(table, keys or {})
        except Exception:  # noqa: BLE001 - moto answers the malformed operation itself
            continue
        before = table.get_item(hash_key, range_key)
        touched.append((table, hash_key, range_key, copy.deepcopy(before)))
    return touched


def _restore(table, hash_key, range_key, before):
    """The item back as it was before the transaction (absent if it was absent)."""
    if before is None:
        table.delete_item(hash_key, range_key)
    elif range_key is not None:
        table.items[hash_key][range_key] = before
    else:
        table.items[hash_key] = before


def transact_write_items(self, transact_items):
    """moto's TransactWriteItems, rolled back item by item."""
    touched = _touched(self, transact_items)
    try:
        return _moto_transact_write_items(self, transact_items)
    except BaseException:
        for table, hash_key, range_key, before in reversed(touched):
            _restore(table, hash_key, range_key, before)
        raise


dynamodb.copy = _TablesNotCopied()
dynamodb.DynamoDBBackend.transact_write_items = transact_write_items

if __name__ == "__main__":
    run_simple("127.0.0.1", int(sys.argv[1]), DomainDispatcherApplication(create_backend_app),
               threaded=False, request_handler=MotoRequestHandler)
