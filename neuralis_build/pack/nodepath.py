"""Node's ``path.posix`` functions that npm's rules depend on (their edge cases differ from ``posixpath``)."""

from __future__ import annotations

import posixpath


def normalize(path: str) -> str:
    """``path.posix.normalize``: keeps a trailing slash, folds ``//`` at the start, ``''`` becomes ``'.'``."""
    if path == "":
        return "."
    absolute = path.startswith("/")
    trailing = path.endswith("/")
    out = posixpath.normpath(path)
    if out.startswith("//"):
        out = "/" + out.lstrip("/")
    if out in (".", "/"):
        return "/" if absolute else ("./" if trailing else ".")
    return out + "/" if trailing else out


def join(*parts: str) -> str:
    """``path.posix.join``: empty parts are skipped, the result normalised."""
    joined = "/".join(p for p in parts if p)
    return normalize(joined) if joined else "."


def relative(start: str, to: str) -> str:
    """``path.posix.relative(start, to)`` for two paths relative to the same folder."""
    return posixpath.relpath(posixpath.join("/r", to), posixpath.join("/r", start))


def basename(path: str) -> str:
    """``path.posix.basename``: trailing slashes do not count."""
    return path.rstrip("/").rsplit("/", 1)[-1] if path.strip("/") else ""


def dirname(path: str) -> str:
    """``path.posix.dirname`` for paths without trailing slashes: ``'a'`` → ``'.'``."""
    head, sep, _ = path.rpartition("/")
    if not sep:
        return "."
    return head or "/"


def extname(path: str) -> str:
    """``path.posix.extname``: ``.hidden`` and ``..`` have none, ``a.`` has ``.``, ``x.d.ts`` has ``.ts``."""
    start_dot, start_part, end = -1, 0, -1
    matched_slash = True
    pre_dot_state = 0  # 0: nothing before the dot yet, 1: only more dots, -1: a non-dot character
    for i in range(len(path) - 1, -1, -1):
        c = path[i]
        if c == "/":
            if not matched_slash:
                start_part = i + 1
                break
            continue
        if end == -1:
            matched_slash = False
            end = i + 1
        if c == ".":
            if start_dot == -1:
                start_dot = i
            elif pre_dot_state != 1:
                pre_dot_state = 1
        elif start_dot != -1:
            pre_dot_state = -1
    if (
        start_dot == -1
        or end == -1
        or pre_dot_state == 0
        or (pre_dot_state == 1 and start_dot == end - 1 and start_dot == start_part + 1)
    ):
        return ""
    return path[start_dot:end]


def secure_unixify(ref: str) -> str:
    """@npmcli/package-json's ``secureAndUnixifyPath``: relative, POSIX, never above the package."""
    unix = ref.replace("\\", "/").replace(":", "/")
    secured = join(".", join("/", unix)).replace("\\", "/").replace(":", "/")
    return "" if secured.startswith("./") else secured


def _is_sep(c: str) -> bool:
    return c in "/\\"


def win32_root(path: str) -> str:
    """``path.win32.parse(path).root``: a drive (``c:``, ``c:/``), a UNC share, or a leading separator."""
    n = len(path)
    if n == 0:
        return ""
    if n == 1:
        return path if _is_sep(path) else ""
    end = 0
    if _is_sep(path[0]):
        end = 1
        if _is_sep(path[1]):
            j = last = 2
            while j < n and not _is_sep(path[j]):
                j += 1
            if j < n and j != last:
                last = j
                while j < n and _is_sep(path[j]):
                    j += 1
                if j < n and j != last:
                    last = j
                    while j < n and not _is_sep(path[j]):
                        j += 1
                    if j == n:
                        end = j
                    elif j != last:
                        end = j + 1
    elif path[0].isascii() and path[0].isalpha() and path[1] == ":":
        end = 3 if n > 2 and _is_sep(path[2]) else 2
    return path[:end]


def _win32_absolute(path: str) -> bool:
    return bool(path) and (_is_sep(path[0]) or (len(path) > 2 and win32_root(path[:3]) == path[:3]))


def strip_absolute(path: str) -> str:
    """node-tar's ``stripAbsolutePath``: drive letters and roots go, even on POSIX (``a:b.js`` → ``b.js``)."""
    while _win32_absolute(path) or win32_root(path):
        root = "/" if path.startswith("/") and not path.startswith("//?/") else win32_root(path)
        path = path[len(root) :]
    return path
