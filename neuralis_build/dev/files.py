"""The dev server's package origin: each package's served trees under ``/<files key>/pkg/<slug>/``.

A second loopback port, so that package code never shares the origin of the page's controls: a
surface opened in a tab of its own runs here, where there is nothing to call. A file is served only
through ``hostpage.model.served_file`` (inside a served tree, no ``..``, no symlink out). CORS is
granted to the page's origin (it imports a module from here) and to the opaque origin of the
sandboxed iframes (their scripts and fetches of their own files), never to anyone else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from neuralis_build.dev.guard import Refused, origins_of, same_secret
from neuralis_build.dev.handler import BaseHandler
from neuralis_build.hostpage.model import PACKAGE_PREFIX, served_file

if TYPE_CHECKING:
    from neuralis_build.dev.server import DevApp

SANDBOXED = "null"  # the Origin a sandboxed iframe (no allow-same-origin) sends


class FilesHandler(BaseHandler):
    def headers_for(self, content_type: str) -> Mapping[str, str]:
        app: DevApp = self.server.app
        page = origins_of(app.page_port)
        extra = {
            "Vary": "Origin",
            "Content-Security-Policy": "frame-ancestors " + " ".join(sorted(page)),
            "Referrer-Policy": "no-referrer",
        }
        origin = self.headers.get("Origin")
        if origin in page or origin == SANDBOXED:
            extra["Access-Control-Allow-Origin"] = origin
        return extra

    def get(self, path: str) -> None:
        app: DevApp = self.server.app
        key, _, rest = path.removeprefix("/").partition("/")
        if not same_secret(key, app.keys.files) or not ("/" + rest).startswith(PACKAGE_PREFIX):
            raise Refused(404, "not found")
        slug, _, rel = rest[len(PACKAGE_PREFIX) - 1 :].partition("/")
        pkg = app.state.snapshot.package(slug)
        found = served_file(pkg, rel) if pkg is not None else None
        if found is None:
            raise Refused(
                404, f"{PACKAGE_PREFIX}{slug}/{rel}: not in a tree the host serves (dist/app/ or a surface's root)"
            )
        self.file(found)
