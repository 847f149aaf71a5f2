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
    """The image at ``path`` as BGR uint8, as ``cv2.imread`` gives it. The file is opened first,
    so a missing file is reported here rather than by OpenCV's own warning."""
    check_readable(path)
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None or image.size == 0:
        raise ImageError(f"cannot read image {path}: not an image OpenCV can decode")
    return image
