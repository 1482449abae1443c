"""Reading tables: a table's record and whose token holds which seat, where every
command and read starts, and the reads clients make: GetTable, GetView, ListTables.

A command that leaves people to decide brings their views from the rules service; they
are kept here (``keep_views``) for the GetView each of them is about to ask.
"""

import hmac
from collections.abc import Collection

import grpc
from google.protobuf import any_pb2

from common import auth, shapes
from common.errors import ApiError, failed, invalid
from gateway.limits import MAX_PAGE_OFFSET, MAX_PAGE_SIZE
from gateway.rules import RulesDirectory
from gateway.store import RequestKey, TableMissing, TableStore
from gateway.text import label_phrases_wanted, labels_told
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.rules.v1 import rules_pb2
from tavola.store.v1 import store_pb2

# Views of seated people kept for their next GetView (see TableReads.keep_views).
KEPT_VIEWS = 4096
INDEX_OF_STATUS = {gw.TABLE_STATUS_OPEN: "open", gw.TABLE_STATUS_IN_PROGRESS: "in-progress"}


def view_request(state: any_pb2.Any, seat: int) -> rules_pb2.GetViewRequest:
    """A seat's GetView for the reader: its labels' phrases only for a reader of another
    language (``phrased`` of what it answers: ``label_phrases_wanted()``)."""
    return rules_pb2.GetViewRequest(state=state, seat=seat, omit_label_phrases=not label_phrases_wanted())


def view_response(
    table: gw.Table, seat: int, view: rules_pb2.GetViewResponse, must_decide: bool, phrased: bool = True
) -> bytes:
    """A seat's GetViewResponse, serialized, from the rules service's view of it. Its parts
    go across as bytes (store.proto's wire messages): copied message by message, a view's
    legal actions cost more than the rest of a GetView's own work; and it stays bytes all
    the way to the client (GetView's answer, a bot's task, a continuing bot's next decision).
    ``phrased``: the view was asked with its labels' phrases (told here, and left out)."""
    parts = store_pb2.RulesViewWire.FromString(view.SerializeToString())
    wire = store_pb2.GetViewResponseWire(
        table=table.SerializeToString(),
        seat=seat,
        view=parts.view,
        must_decide=must_decide,
        legal_actions=labels_told(table.game_id, parts.legal_actions, phrased),  # in the reader's language
    )
    return wire.SerializeToString()


class TableReads:
    def __init__(self, store: TableStore, rules: RulesDirectory):
        self.store = store
        self.rules = rules
        # Views of people who must decide, by (table, version, seat), each with whether it
        # has its labels' phrases: see keep_views.
        self.kept_views: dict[tuple[str, int, int], tuple[rules_pb2.GetViewResponse, bool]] = {}

    async def load(
        self, table_id: str, request_key: RequestKey | None = None
    ) -> tuple[store_pb2.TableRecord, store_pb2.StoredResponse | None]:
        """The table's record and the stored response of ``request_key`` (or None)."""
        if not table_id:
            raise invalid("TABLE_ID_REQUIRED", "table_id is required")
        shapes.table_id(table_id)  # before it names the table's keys, whoever asks
        try:
            return await self.store.load(table_id, request_key)
        except TableMissing:
            raise ApiError(grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND", f"no table {table_id!r}") from None

    @staticmethod
    def seat_of(record: store_pb2.TableRecord, token: str) -> int | None:
        digest = auth.digest(token)
        for seat, stored in enumerate(record.seat_token_sha256):
            if stored and hmac.compare_digest(stored, digest):
                return seat
        return None

    def authorise_seat(self, record: store_pb2.TableRecord, token: str) -> int:
        seat = self.seat_of(record, token)
        if seat is None:
            raise ApiError(
                grpc.StatusCode.PERMISSION_DENIED, "TOKEN_NOT_FOR_TABLE", "this token holds no seat at this table"
            )
        return seat

    @staticmethod
    def require_status(record: store_pb2.TableRecord, wanted: int) -> None:
        status = record.table.status
        if status == wanted:
            return
        reasons = {
            gw.TABLE_STATUS_OPEN: ("TABLE_NOT_STARTED", "the table has not started"),
            gw.TABLE_STATUS_IN_PROGRESS: ("TABLE_IN_PROGRESS", "the table has already started"),
            gw.TABLE_STATUS_FINISHED: ("TABLE_FINISHED", "the game is over"),
        }
        reason, message = reasons[status]
        raise failed(reason, message, table_id=record.table.table_id)

    def keep_views(
        self,
        table: gw.Table,
        views: dict[int, rules_pb2.GetViewResponse],
        sessions: Collection[int] = (),
        phrased: bool = True,
    ) -> None:
        """Keeps the views at the table's new version that the rules service sent with the
        applied action: of the people who must decide, for their next GetView, and of the
        seats with a session open here (``sessions``), for its next update. ``phrased``: the
        views have their labels' phrases (asked for a reader of another language)."""
        kept = self.kept_views
        playing = table.status == gw.TABLE_STATUS_IN_PROGRESS
        for seat, view in views.items():
            if seat in sessions or (playing and table.seats[seat].kind == gw.SEAT_KIND_HUMAN):
                while len(kept) >= KEPT_VIEWS:
                    del kept[next(iter(kept))]  # the oldest
                kept[(table.table_id, table.version, seat)] = (view, phrased)

    async def seat_view(self, table_id: str, token: str) -> bytes:
        """The token's seat's GetViewResponse, serialized (grpc sends it as it is)."""
        record, _ = await self.load(table_id)
        seat = self.authorise_seat(record, token)
        if not record.HasField("state"):  # never dealt: open, or closed unstarted
            self.require_status(record, gw.TABLE_STATUS_IN_PROGRESS)
        view, phrased = await self.view_of(record, seat)
        return view_response(record.table, seat, view, seat in record.table.deciding_seats, phrased)

    async def view_of(self, record: store_pb2.TableRecord, seat: int) -> tuple[rules_pb2.GetViewResponse, bool]:
        """The seat's view at the record's version, and whether it has its labels' phrases:
        the one the command that made it brought, if kept (the version names the state: every
        commit changes it, through one compare-and-set) and fit for the reader, else asked."""
        key = (record.table.table_id, record.table.version, seat)
        kept = self.kept_views.pop(key, None)
        if kept is not None:
            self.kept_views[key] = kept  # asked again: still this version's
            if kept[1] or not label_phrases_wanted():
                return kept
        request = view_request(record.state, seat)
        view = await self.rules.call(record.table.game_id, "GetView", request)
        return view, not request.omit_label_phrases

    async def table(self, table_id: str) -> gw.GetTableResponse:
        record, _ = await self.load(table_id)
        response = gw.GetTableResponse(table=record.table)
        if record.HasField("state"):  # dealt (an open table, or one closed unstarted, is not)
            view = await self.rules.view_if_up(record.table.game_id, rules_pb2.GetViewRequest(state=record.state))
            if view is None:
                response.view_unavailable = True
            else:
                response.spectator_view.CopyFrom(view.view)
        return response

    async def list_tables(
        self, status: gw.TableStatus, game_id: str, page_size: int, page_token: str
    ) -> gw.ListTablesResponse:
        status = status or gw.TABLE_STATUS_OPEN
        index = INDEX_OF_STATUS.get(status)
        if index is None:
            raise invalid("BAD_STATUS", "list open or in-progress tables")
        if game_id:
            shapes.game_id(game_id)
        size = min(page_size or 20, MAX_PAGE_SIZE)
        offset = shapes.page_offset(page_token)
        if size < 0 or offset > MAX_PAGE_OFFSET:
            raise invalid("BAD_PAGE", "page_size >= 0 and a page_token from a response")
        table_ids = await self.store.listed(index, offset, size)
        response = gw.ListTablesResponse()
        for table_id, record in zip(table_ids, await self.store.load_many(table_ids), strict=True):
            if record is None:  # expired since it was filed
                await self.store.index(table_id, None, 0)
            elif record.table.status == status and game_id in ("", record.table.game_id):
                response.tables.append(record.table)
        if len(table_ids) == size:
            response.next_page_token = str(offset + size)
        return response
