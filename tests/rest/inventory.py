"""A small inventory service on FastAPI, for the REST API plugin tests
(tests/all/rest_apis.rs). FastAPI writes its OpenAPI 3.1 document at /openapi.json:
the host reads that, as it would any FastAPI application's.

Run: uvicorn --app-dir tests/rest inventory:app --port PORT
"""

import asyncio
import base64
import json

from fastapi import Depends, FastAPI, File, Header, HTTPException, Query, Response, UploadFile
from fastapi.responses import RedirectResponse, StreamingResponse
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field

TOKEN = "inventory-token"
KEY = "stats-key"

app = FastAPI(title="Inventory", version="1.0.0")
bearer = HTTPBearer(auto_error=False)
api_key = APIKeyHeader(name="X-API-Key", auto_error=False)


class NewItem(BaseModel):
    name: str = Field(description="What the item is called")
    price: float = Field(ge=0, description="Its price in euros")
    tags: list[str] = []


class Item(NewItem):
    id: int


ITEMS = {1: Item(id=1, name="lamp", price=25.0, tags=["light"]), 2: Item(id=2, name="desk", price=180.0)}

# A 1x1 transparent PNG.
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def signed_in(credentials: HTTPAuthorizationCredentials | None = Depends(bearer)) -> None:
    if credentials is None or credentials.credentials != TOKEN:
        raise HTTPException(status_code=401, detail="a valid bearer token is needed")


def keyed(key: str | None = Depends(api_key)) -> None:
    if key != KEY:
        raise HTTPException(status_code=403, detail="a valid X-API-Key is needed")


@app.get("/items/{item_id}", operation_id="get_item", tags=["items"], dependencies=[Depends(signed_in)])
def get_item(item_id: int, verbose: bool = False, x_trace_id: str | None = Header(default=None)) -> dict:
    """Get one item by its id, with the trace id the caller sent."""
    if item_id not in ITEMS:
        raise HTTPException(status_code=404, detail=f"there is no item {item_id}")
    item = ITEMS[item_id].model_dump()
    return {"item": item, "verbose": verbose, "trace": x_trace_id}


@app.post("/items", operation_id="create_item", tags=["items"], status_code=201, dependencies=[Depends(signed_in)])
def create_item(item: NewItem) -> Item:
    """Add an item to the inventory."""
    made = Item(id=max(ITEMS) + 1, **item.model_dump())
    ITEMS[made.id] = made
    return made


@app.get("/search", operation_id="search_items", tags=["items"], dependencies=[Depends(signed_in)])
def search_items(
    q: str, limit: int = Query(default=10, ge=1, le=100), tag: list[str] = Query(default=[])
) -> list[Item]:
    """Find items whose name holds q, with all the given tags."""
    found = [i for i in ITEMS.values() if q in i.name and all(t in i.tags for t in tag)]
    return found[:limit]


@app.get("/slow", operation_id="wait", tags=["items"], dependencies=[Depends(signed_in)])
async def wait(seconds: float) -> dict:
    """Answer after the given number of seconds."""
    await asyncio.sleep(seconds)
    return {"waited": seconds}


@app.get("/moved", operation_id="moved", tags=["items"], dependencies=[Depends(signed_in)])
def moved(to: str) -> RedirectResponse:
    """Redirect to the given URL."""
    return RedirectResponse(to, status_code=307)


@app.get(
    "/chart.png",
    operation_id="chart",
    tags=["items"],
    dependencies=[Depends(signed_in)],
    response_class=Response,
    responses={200: {"content": {"image/png": {}}}},
)
def chart() -> Response:
    """A chart of the inventory, as a PNG image."""
    return Response(PIXEL, media_type="image/png")


@app.post("/items/{item_id}/photo", operation_id="upload_photo", tags=["items"], dependencies=[Depends(signed_in)])
async def upload_photo(item_id: int, photo: UploadFile = File()) -> dict:
    """Attach a photo to an item."""
    return {"item": item_id, "bytes": len(await photo.read())}


@app.get(
    "/events",
    operation_id="events",
    tags=["items"],
    dependencies=[Depends(signed_in)],
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}}},
)
def events() -> StreamingResponse:
    """Changes to the inventory, as they happen."""
    return StreamingResponse(iter(["data: {}\n\n"]), media_type="text/event-stream")


@app.get("/stats", operation_id="stats", tags=["stats"], dependencies=[Depends(keyed)])
def stats() -> dict:
    """How many items there are and what they are worth."""
    return {"items": len(ITEMS), "worth": sum(i.price for i in ITEMS.values())}


@app.get("/me", operation_id="whoami", tags=["oauth"])
def whoami(credentials: HTTPAuthorizationCredentials | None = Depends(bearer)) -> dict:
    """Who the caller's access token says it is: its issuer and scope (read, not
    verified: this application only shows what a client sent)."""
    try:
        payload = credentials.credentials.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (AttributeError, IndexError, ValueError):
        raise HTTPException(status_code=401, detail="an access token (a JWT) is needed")
    return {"iss": claims.get("iss"), "scope": claims.get("scope")}
