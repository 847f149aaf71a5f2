"""Reading a frame from a file, with an error that names the file."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np


class ImageError(ValueError):
    """A missing or unreadable image; the message names the file."""


def check_readable(path: str | Path) -> None:
    """Raise ImageError unless ``path`` is a file this process can open (cheap: no decoding)."""
    try:
        with open(path, "rb") as handle:
            handle.read(1)
    except OSError as error:
        raise ImageError(f"cannot read image {path}: {error.strerror or error}") from None


def read_image(path: str | Path) -> np.ndarray:
    """The image at ``path`` as BGR uint8, as ``cv2.imread`` gives it. The file is read first,
    so a missing file is reported here rather than by OpenCV's own warning, and a JPEG cut
    short (no end-of-image marker: a copy that did not finish) is refused rather than decoded
    half grey with libjpeg's warning on stderr."""
    check_readable(path)
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise ImageError(f"cannot read image {path}: {error.strerror or error}") from None
    if not data:
        raise ImageError(f"cannot read image {path}: the file is empty")
    if data[:2] == b"\xff\xd8" and b"\xff\xd9" not in data[-64:]:
        raise ImageError(f"cannot read image {path}: the JPEG is cut short (no end-of-image marker)")
    image = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR)
    if image is None or image.size == 0:
        raise ImageError(f"cannot read image {path}: not an image OpenCV can decode")
    return image
