"""Whether an arm or hand is over the table. Two cues, either suffices:

- a big blob of the face mask reaching in from the frame's edge that is not tiles (an arm of
  the tiles' colour, or one taken for them);
- a wide region of foreground that is no tile and not the table's own light: what differs from
  the table model once the tiles' rectangles are taken away, and once pixels of the table's hue
  (lamp fall-off and vignette the smooth model misses change the table's lightness, not its hue)
  are set aside, unless far darker than the table (a dark arm of the table's hue). Only its
  part wider than an arm's core counts (a line of tiles is one tile wide, and its slivers and
  seams thinner still), and only over the table; and it must reach in over the table's edge
  or the frame's (an arm comes from a person beside the table: a wide patch lying wholly
  inside the table is the table in other light, as a lamp's warm patch on wood).

Neither counts what is far wider than an arm: that is the table itself, seen as foreground when
the table model was fitted to the floor around it (the frame is then unreadable, not occluded).

"The table" is the hull of its largest region that matches the table model. An arm reaching right
across the table cuts that region in two, and the larger part's hull then stops where the arm comes
in. So the second cue is tried again over the hull of all the table's pieces, counting nothing
wider than an arm and hand can be: that hull may take in patches of a floor like the table, and
the floor it then holds is wider."""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.config import VisionConfig
from referee.vision.segment import outline
from referee.vision.split import Box

__all__ = ["occluded", "table_outlines"]


def _hull(shape: tuple[int, ...], parts: list[np.ndarray]) -> np.ndarray:
    table = np.zeros(shape, np.uint8)
    cv2.fillConvexPoly(table, cv2.convexHull(np.concatenate(parts)), 1)
    return table


def table_outlines(free: np.ndarray, piece: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The table's outline two ways, filled, from the regions close to the table model
    (``free``, 1 there): the convex hull of the largest region alone (for the arm test: a wider
    outline takes in more of an arm's surroundings, and clear frames were then called occluded),
    and of the regions of at least ``piece`` of its size (a wood table's grain and a lamp's
    fall-off cut a table into pieces). The floor beyond a table's rim lies outside both; the
    tiles on the table lie inside. None when there is no such region."""
    count, comp, stats, _ = cv2.connectedComponentsWithStats(free, connectivity=4)
    if count < 2:
        return None
    areas = stats[1:, cv2.CC_STAT_AREA]
    largest = 1 + int(np.argmax(areas))
    keep = 1 + np.flatnonzero(areas >= piece * float(areas.max()))
    parts = {}
    for i in {largest, *(int(k) for k in keep)}:
        x, y, bw, bh = (int(v) for v in stats[i, :4])
        parts[i] = outline((comp[y:y + bh, x:x + bw] == i).astype(np.uint8)) + np.array([x, y], np.int32)
    alone = _hull(free.shape, [parts[largest]])
    return alone, alone if len(keep) == 1 else _hull(free.shape, list(parts.values()))


def dilate_disc(mask: np.ndarray, k: int) -> np.ndarray:
    """``mask`` dilated by OpenCV's elliptic (k, k) structuring element (k odd), the same pixels,
    twice as fast for large k: the disc is the union of the rectangles its rows make (each row's
    half width with the farthest row that reaches it), and a rectangle's dilation is separable."""
    if k % 2 == 0:
        raise ValueError(f"a disc's size must be odd, got {k}")
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    r = k // 2
    reach: dict[int, int] = {}
    for i, width in enumerate(disc.sum(axis=1).tolist()):
        if not width:
            continue
        a = int(width) // 2
        reach[a] = max(reach.get(a, 0), abs(i - r))
    out = np.zeros_like(mask)
    for a, b in reach.items():
        out |= cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_RECT, (2 * a + 1, 2 * b + 1)))
    return out


def _reaches_in(wide: np.ndarray, rest: np.ndarray, rim: np.ndarray) -> bool:
    """Whether the largest part of ``wide`` lies in a part of ``rest`` (what it was cut from)
    that touches ``rim`` (the table's edge and the frame's)."""
    count, comp, stats, _ = cv2.connectedComponentsWithStats(wide, connectivity=8)
    if count < 2:
        return False
    largest = comp == 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    _, parts = cv2.connectedComponents(rest, connectivity=8)
    holding = np.unique(parts[largest])
    touching = np.unique(parts[(rim > 0) & (rest > 0)])
    return bool(np.intersect1d(holding[holding > 0], touching).size)


def _rest(lab: np.ndarray, table_lab: np.ndarray, loose: np.ndarray, boxes: list[Box], length: float,
          config: VisionConfig) -> np.ndarray:
    """The foreground that is neither a found tile nor the table in other light (anywhere: each
    outline of the table takes its own part of it)."""
    covered = np.zeros(loose.shape, np.uint8)
    grow = config.arm_margin * length
    for b in boxes:
        grown = Box(b.cx, b.cy, b.length + 2 * grow, b.width + 2 * grow, b.angle)
        cv2.fillConvexPoly(covered, np.round(grown.corners()).astype(np.int32), 1)
    da = lab[..., 1] - table_lab[..., 1]
    db = lab[..., 2] - table_lab[..., 2]
    np.square(da, out=da)
    np.square(db, out=db)
    da += db
    # A dark arm on a light table may keep the table's hue (brown skin on pale wood): far darker
    # than the table counts too (a lamp's fall-off the model misses is not that dark).
    other = (da >= config.shadow_chroma ** 2) | (lab[..., 0] < config.arm_dark * table_lab[..., 0])
    return loose & (1 - covered) & other.view(np.uint8)


def _cores(rest: np.ndarray, length: float, config: VisionConfig) -> np.ndarray:
    """``rest`` (0/1) cut down to its parts wider than an arm's core, ``arm_core`` tile lengths
    (an opening by a disc of that width)."""
    radius = config.arm_core * length / 2
    core = (cv2.distanceTransform(rest, cv2.DIST_L2, 5) > radius).astype(np.uint8)
    if not core.any():
        return core
    # The disc reaches ``k // 2`` beyond the core: dilate only the core's bounding box grown by it.
    k = 2 * round(radius) + 1
    x, y, bw, bh = cv2.boundingRect(core)
    x0, y0 = max(0, x - k // 2), max(0, y - k // 2)
    x1, y1 = min(core.shape[1], x + bw + k // 2), min(core.shape[0], y + bh + k // 2)
    out = np.zeros_like(core)
    out[y0:y1, x0:x1] = dilate_disc(core[y0:y1, x0:x1], k)
    return out & rest


def _arm_wide(region: np.ndarray, length: float, config: VisionConfig, widest: float | None = None,
              table: np.ndarray | None = None) -> int:
    """The pixels of ``region``'s largest part (an arm is one piece); none when a part is wider
    than an arm can be, ``widest`` tile lengths (``arm_widest`` when None: the table model was
    fitted to the floor, and nothing here is to be trusted), or when that part hugs the rim of
    the outline ``table`` (:func:`_hugs_rim`; not looked at when None)."""
    if not region.any():
        return 0
    _, comp, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(region, 8, cv2.CV_32S, cv2.CCL_BBDT)
    # The widest part anywhere: twice the largest distance from the region's border.
    limit = config.arm_widest if widest is None else widest
    if 2 * float(cv2.distanceTransform(region, cv2.DIST_L2, 5).max()) > limit * length:
        return 0
    largest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, bw, bh, area = (int(v) for v in stats[largest])
    # Its bounding box and a pixel round it (within the frame: the frame's edge is no border).
    x0, y0 = max(0, x - 1), max(0, y - 1)
    part = (comp[y0:y + bh + 1, x0:x + bw + 1] == largest).astype(np.uint8)
    if table is not None and _hugs_rim(part, (x0, y0), table, length, config):
        return 0
    return area


def _hugs_rim(part: np.ndarray, origin: tuple[int, int], table: np.ndarray, length: float,
              config: VisionConfig) -> bool:
    """Whether ``part`` (0/1, its top left corner at ``origin`` in the pixels of the outline
    ``table``) lies along the outline's rim or the frame's edge: its body, what of it is wider
    than ``arm_hug_body`` tile lengths, reaches no deeper into the table than ``arm_hug_deep``
    times the part's thickness, and is at least ``arm_hug_long`` times longer than that depth.
    An arm reaches in across the rim, deeper than it is thick or about as long as it is deep;
    the body leaves out a line of tiles the blob of a hand took in. A part thinner than an
    arm's core (``arm_core``) is never such a band: the outline stops where an arm cuts the
    table's region, and an arm lying just beyond it shows a sliver along its rim."""
    if config.arm_hug_long <= 0:
        return False
    thick = 2 * float(cv2.distanceTransform(part, cv2.DIST_L2, 5).max())
    if thick < config.arm_core * length:
        return False
    k = max(1, round(config.arm_hug_body * length)) | 1
    body = cv2.morphologyEx(part, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    inside = table.copy()
    inside[0, :] = inside[-1, :] = inside[:, 0] = inside[:, -1] = 0
    x, y = origin
    h, w = part.shape
    depth = float(cv2.distanceTransform(inside, cv2.DIST_L2, 5)[y:y + h, x:x + w][body > 0].max())
    _, sides, _ = cv2.minAreaRect(cv2.findNonZero(body))
    return depth <= config.arm_hug_deep * thick and max(sides) >= config.arm_hug_long * depth


def occluded(lab: np.ndarray, table_lab: np.ndarray, loose: np.ndarray, boxes: list[Box], big: list[np.ndarray],
             length: float, config: VisionConfig, table: np.ndarray | None,
             pieces: np.ndarray | None = None) -> bool:
    """An arm or hand over the table (see the module's note). ``loose`` is 1 where the frame
    differs from the table model, ``boxes`` are the tiles found, ``big`` the face-mask blobs from
    the frame's edge that are not tiles, ``length`` the tile length, ``table`` the outline of the
    table's largest region and ``pieces`` that of all its pieces (:func:`table_outlines`), all
    in the same pixels. The wide-foreground cue is tried over ``table``, then over ``pieces``
    counting nothing wider than ``arm_piece_widest`` tile lengths: an arm cuts the table's
    region in two, and the largest part's hull may stop where the arm comes in."""
    if table is None:
        return False
    tile_area = length * length / config.aspect
    # The floor beyond the table may be any colour: only what lies over the table counts, off
    # the outline's rim (the sliver of floor between a table's straight edge and the hull of
    # its outline is thin, but long enough to weigh as much as an arm).
    k = max(3, round(2 * config.arm_margin * length)) | 1
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    inner = cv2.erode(table, disc)
    if any(_arm_wide(blob & inner, length, config, None, table) > config.occluder_tiles * tile_area for blob in big):
        return True
    foreign = _rest(lab, table_lab, loose, boxes, length, config)
    if _wide_arm(foreign, length, config, table, inner, None):
        return True
    return config.arm_piece_widest > 0 and pieces is not None and bool((pieces > table).any()) and _wide_arm(
        foreign, length, config, pieces, cv2.erode(pieces, disc), config.arm_piece_widest)


def _wide_arm(foreign: np.ndarray, length: float, config: VisionConfig, table: np.ndarray, inner: np.ndarray,
              widest: float | None) -> bool:
    """The wide-foreground cue over the outline ``table`` (``inner``: the outline off its rim):
    the part of ``foreign`` (:func:`_rest`) over it, counting no part wider than ``widest`` tile
    lengths (:func:`_arm_wide`)."""
    rest = foreign & table
    wide = _cores(rest, length, config)
    if _arm_wide(wide, length, config, widest, table) <= config.arm_tiles * length * length / config.aspect:
        return False
    # An arm reaches in over the table's edge (or the frame's): foreground lying wholly inside
    # the table, however wide, is the table in other light (a lamp's warm patch on wood).
    rim = table & (1 - inner)
    rim[0, :] = rim[-1, :] = rim[:, 0] = rim[:, -1] = 1
    return _reaches_in(wide, rest, rim)
