"""``referee.vision.chain``: a long line of tiles end to end, seen from a side.

A straight line of play is drawn with known truth (the drawing of ``test_vision_detect``), then
the whole frame is seen through a camera tilted along the line: the far tiles look smaller, so
the line's period shrinks from one end to the other."""

from __future__ import annotations

import itertools
import math

import cv2
import numpy as np
import pytest
from test_vision_detect import DARK_INK, FELT, IVORY, Drawn, L, finish, lay, problems, run, sprite, table

from referee.vision.config import VisionConfig
from referee.vision.detect import detect

SIZE = (560, 1280)  # frame height, width


def line_of_play(rng: np.random.Generator, n: int) -> list[tuple[int, int]]:
    """n distinct tiles of a double-six set, no doubles (they lie across a line), each next one
    matching the last's free end."""
    while True:
        used: set[tuple[int, int]] = set()
        end = int(rng.integers(0, 7))
        line = []
        for _ in range(n):
            options = [b for b in range(7) if b != end and (min(end, b), max(end, b)) not in used]
            if not options:
                break
            b = int(rng.choice(options))
            used.add((min(end, b), max(end, b)))
            line.append((end, b))
            end = b
        if len(line) == n:
            return line


def seen_from_a_side(rng: np.random.Generator, n: int, tilt: float) -> tuple[np.ndarray, list[Drawn]]:
    """A line of n tiles end to end across the frame, seen by a camera turned ``tilt`` degrees
    about the frame's vertical axis (the line's far end, on the right, looks smaller); the
    frame and the truth, through the same view."""
    h, w = SIZE
    canvas = table(rng, FELT, shape=SIZE)
    x0, y = (w - n * (L + 1)) / 2 + L / 2, h / 2
    drawn = []
    for k, pips in enumerate(line_of_play(rng, n)):
        x = x0 + k * (L + 1)
        canvas = lay(canvas, sprite(pips, IVORY, DARK_INK), x, y, 0.0)
        drawn.append(Drawn(pips, ((x - L / 4, y), (x + L / 4, y)), (x, y)))
    # A camera turning about its centre: the homography K R K^-1 (focal length 1.5 frame widths).
    f = 1.5 * w
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
    a = math.radians(tilt)
    turn = np.array([[math.cos(a), 0, math.sin(a)], [0, 1, 0], [-math.sin(a), 0, math.cos(a)]])
    view = k @ turn @ np.linalg.inv(k)
    # ... moved back so the line's middle stays in the middle of the frame.
    middle = view @ np.array([w / 2, h / 2, 1.0])
    view = np.array([[1, 0, w / 2 - middle[0] / middle[2]], [0, 1, h / 2 - middle[1] / middle[2]], [0, 0, 1]]) @ view
    image = cv2.warpPerspective(canvas, view, (w, h), borderMode=cv2.BORDER_REPLICATE)

    def at(p: tuple[float, float]) -> tuple[float, float]:
        q = cv2.perspectiveTransform(np.float32([[p]]), view)[0, 0]
        return float(q[0]), float(q[1])

    truth = [Drawn(d.pips, (at(d.halves[0]), at(d.halves[1])), at(d.center)) for d in drawn]
    return finish(image, rng), truth


def spacing(truth: list[Drawn]) -> list[float]:
    return [math.dist(a.center, b.center) for a, b in itertools.pairwise(truth)]


@pytest.mark.parametrize("seed", range(3))
def test_a_long_line_seen_from_a_side_is_read_tile_by_tile(seed: int) -> None:
    image, truth = seen_from_a_side(np.random.default_rng(6100 + seed), 9, -10.0)
    gaps = spacing(truth)
    assert gaps[-1] < 0.9 * gaps[0]  # the far tiles do look smaller
    assert problems(run(image), truth) == []


def test_without_the_taper_the_boxes_drift_off_the_far_tiles() -> None:
    # What the taper is for: one period for the whole line puts the far boxes across seams
    # (the second look on a packed tile's divider, the run's ends found where its face ends, and
    # the tiles read again on the divider bars no tile holds, rescue some of them: left out here).
    image, truth = seen_from_a_side(np.random.default_rng(6100), 9, -10.0)
    alone = VisionConfig(run_taper=0.0, divider_packed_reach=0.0, run_face=0.0, bar_most=0)
    assert problems(detect(image, alone), truth) != []
    assert problems(detect(image, VisionConfig(divider_packed_reach=0.0)), truth) == []


def test_a_box_beside_a_double_across_its_run_is_known_to_straddle_it() -> None:
    # A line along x (width 20 px) with a double across it at x = 200 (40 px along the line,
    # reaching 10 px past each side), as the face mask shows them. A box of the run over the
    # double and its neighbour (the packing ran through the double) straddles it; the boxes of
    # the run either side of a double packed across it do not, nor does one on a plain stretch.
    from referee.vision.detect import _across_a_double
    from referee.vision.split import Box

    mask = np.zeros((200, 400), np.uint8)
    mask[90:110, 20:380] = 1
    mask[80:120, 180:220] = 1
    assert _across_a_double(mask, Box(220.0, 100.0, 40.0, 20.0, 0.0, True))
    assert _across_a_double(mask, Box(180.0, 100.0, 40.0, 20.0, 180.0, True))
    assert not _across_a_double(mask, Box(240.0, 100.0, 40.0, 20.0, 0.0, True))
    assert not _across_a_double(mask, Box(160.0, 100.0, 40.0, 20.0, 0.0, True))
    assert not _across_a_double(mask, Box(100.0, 100.0, 40.0, 20.0, 0.0, True))
    assert not _across_a_double(None, Box(220.0, 100.0, 40.0, 20.0, 0.0, True))


def test_a_spinner_its_branch_leaves_from_is_known_from_a_box_straddling_a_double() -> None:
    # A line along x (width 20 px) with the spinner across it at x = 200 (20 px along the line,
    # 40 px across), and a branch leaving the spinner's end upwards along y. The spinner's box
    # lies in the branch's run: the line passes across its middle and on a tile's length past
    # both its long sides. A box of the line packed through the double across it, or straddling
    # the double and its neighbour, finds faces only half a width past its sides; a box of the
    # branch has table beside it.
    from referee.vision.detect import _across_a_double, _crossed_by_a_line
    from referee.vision.split import Box

    mask = np.zeros((300, 400), np.uint8)
    mask[140:160, 20:380] = 1  # the line
    mask[130:170, 190:210] = 1  # the spinner, across it
    mask[10:130, 190:210] = 1  # the branch, up from the spinner's end
    spinner = Box(200.0, 150.0, 40.0, 20.0, 90.0, True)
    assert _crossed_by_a_line(mask, spinner)
    assert _crossed_by_a_line(mask, Box(200.0, 152.0, 40.0, 20.0, -89.0, True))  # a little off
    assert not _crossed_by_a_line(mask, Box(200.0, 110.0, 40.0, 20.0, 90.0, True))  # the branch's first tile
    assert not _crossed_by_a_line(mask, Box(200.0, 150.0, 40.0, 20.0, 0.0, True))  # along the line, on the double
    assert not _crossed_by_a_line(mask, Box(210.0, 150.0, 40.0, 20.0, 0.0, True))  # straddling double and neighbour
    assert not _crossed_by_a_line(mask, Box(100.0, 150.0, 40.0, 20.0, 0.0, True))
    assert not _crossed_by_a_line(None, spinner)
    # Without the branch the same line's boxes are as before: the straddling one is known.
    assert _across_a_double(mask, Box(210.0, 150.0, 40.0, 20.0, 0.0, True))


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_run_packed_half_a_tile_off_is_read_again_on_its_tiles(sign: float) -> None:
    # Rendered black sets on felt (line-5514-0001): a run's boxes each lay over a seam, half a
    # tile off, and read doubles or nothing. Moved back half a tile they read every tile.
    from referee.vision.read import decide, gather_many, pip_contrast, rectify
    from referee.vision.reading import _rephase
    from referee.vision.split import Box

    image, truth = seen_from_a_side(np.random.default_rng(6200), 7, 0.0)
    config = VisionConfig()
    c = config.cell_px

    def read(boxes: list[Box]) -> tuple[list[Box], list, list, float]:
        corners = [b.corners() for b in boxes]
        evidence = gather_many([rectify(image, q, c) for q in corners], config)
        contrast = pip_contrast(evidence)
        assert contrast is not None
        items = [(q, e, True) for q, e in zip(corners, evidence, strict=True)]
        return list(boxes), items, [decide(e, contrast, config) for e in evidence], contrast

    off = [Box(d.center[0] + sign * L / 2, d.center[1], L, L / 2, 0.0, True) for d in truth]
    fulls, items, readings, contrast = read(off)
    assert sum(r.confidence >= config.min_confidence and r.pips[0] != r.pips[1] for r in readings) <= 1
    before = [(f, r) for f, r in zip(fulls, readings, strict=True)]
    _rephase(image, list(range(len(off))), fulls, items, readings, contrast, config)
    for f, r, d in zip(fulls, readings, truth, strict=True):
        assert math.dist((f.cx, f.cy), d.center) < 0.1 * L
        assert sorted(r.pips) == sorted(d.pips) and r.confidence >= config.min_confidence
    # Off by its setting, the run stays as it was.
    fulls, items, readings, contrast = read(off)
    _rephase(image, list(range(len(off))), fulls, items, readings, contrast, VisionConfig(run_rephase=0))
    assert list(zip(fulls, readings, strict=True)) == before
    # A run read surely where it lies stays there.
    on = [Box(d.center[0], d.center[1], L, L / 2, 0.0, True) for d in truth]
    fulls, items, readings, contrast = read(on)
    _rephase(image, list(range(len(on))), fulls, items, readings, contrast, config)
    assert fulls == on


def test_a_box_along_a_line_of_faces_is_known_to_lie_along_it() -> None:
    # Rendered line 12 (1280x720): a box over the seam of 6-3 and 3-5 read the double 3-3 at
    # 0.9 confidence, in no packed run. A line along x (width 20 px) in the face mask: a box in
    # it has faces past both ends and the table beside it; a lone tile has the table past its
    # ends; a spinner across the line has the line beside its long sides; and a tile amid a
    # mask spilt over the table round it has faces beside it too.
    from referee.vision.detect import _runs_on
    from referee.vision.split import Box

    mask = np.zeros((200, 400), np.uint8)
    mask[90:110, 20:300] = 1
    assert _runs_on(mask, Box(150.0, 100.0, 40.0, 20.0, 0.0, False))
    assert _runs_on(mask, Box(150.0, 100.0, 40.0, 20.0, 180.0, True))
    assert not _runs_on(mask, Box(40.0, 100.0, 40.0, 20.0, 0.0, False))  # the line's end
    lone = np.zeros((200, 400), np.uint8)
    lone[90:110, 130:170] = 1
    assert not _runs_on(lone, Box(150.0, 100.0, 40.0, 20.0, 0.0, False))
    spinner = mask.copy()
    spinner[90:110, 300:400] = 1  # the line, on through the spinner's place to the frame's edge
    spinner[80:120, 340:360] = 1  # the spinner across it, and tiles against its short ends
    spinner[40:80, 340:360] = 1
    spinner[120:160, 340:360] = 1
    assert not _runs_on(spinner, Box(350.0, 100.0, 40.0, 20.0, 90.0, False))
    spilt = np.ones((200, 400), np.uint8)
    assert not _runs_on(spilt, Box(150.0, 100.0, 40.0, 20.0, 0.0, False))
    assert not _runs_on(None, Box(150.0, 100.0, 40.0, 20.0, 0.0, False))


@pytest.mark.parametrize("seed", range(2))
def test_a_line_square_to_the_frame_is_found(seed: int) -> None:
    # A line along the frame's rows fills its blob's box from side to side: the arms' width is
    # read off the blob with the box's sides counted as its border, not as more face.
    image, truth = seen_from_a_side(np.random.default_rng(6200 + seed), 7, 0.0)
    assert problems(run(image), truth) == []


def run_profile(ends: tuple[float, float], tiles: int, seam: float, divider: float) -> np.ndarray:
    """The ink along a run (strip pixels): table (60) beyond ``ends``, face (2) between, a
    line every half period (seams ``seam`` high, dividers ``divider``), blurred a little."""
    n = 340
    xs = np.arange(n, dtype=np.float64)
    lo, hi = ends
    profile = np.where((xs < lo) | (xs > hi), 60.0, 2.0)
    period = (hi - lo) / tiles
    for k in range(1, 2 * tiles):
        x = lo + k * period / 2
        profile[round(x)] += seam if k % 2 == 0 else divider
    return cv2.GaussianBlur(profile.reshape(1, -1), (0, 0), 1.0).ravel().astype(np.float32)


def test_a_run_packed_short_of_its_ends_reaches_out_to_them() -> None:
    # Six black tiles, 47.5 strip pixels each, from 17 to 302: their golden-pinned dividers
    # stand out more than their seams. Packed with a tile length 6% long, the run's boxes
    # stopped 16 pixels short of its lower end. Its ends are looked for out to where the face
    # gives way; searched only near the packed ends, half a tile off, dividers were taken for
    # seams.
    from referee.vision.chain import _fit

    profile = run_profile((17.0, 302.0), 6, seam=5.0, divider=20.0)
    config = VisionConfig()
    fit = _fit(profile, 48.0, 33.5, 303.5, 6, config, -math.inf, 302.7)
    assert fit is not None
    lo, hi, tiles, _ = fit
    assert tiles == 6 and abs(lo - 17.0) <= 3 and abs(hi - 302.0) <= 3
    short = _fit(profile, 48.0, 33.5, 303.5, 6, VisionConfig(run_face=0.0), -math.inf, 302.7)
    assert short is not None and abs(short[0] - 17.0) > 10


def test_a_run_packed_into_the_double_across_it_starts_at_the_double() -> None:
    # The packed boxes overlapped the double lying across the run's start (at 45.8): the run's
    # start is looked for from the double's edge, not given up.
    from referee.vision.chain import _fit

    profile = run_profile((45.5, 241.5), 4, seam=5.0, divider=20.0)
    fit = _fit(profile, 48.0, 33.6, 224.4, 4, VisionConfig(), 45.8, math.inf)
    assert fit is not None
    lo, hi, tiles, _ = fit
    assert tiles == 4 and abs(lo - 45.5) <= 3 and abs(hi - 241.5) <= 3


def test_a_tapered_period_stays_near_the_tile_length_at_both_ends() -> None:
    # Seams of eight tiles whose period tapers from 45.4 to 38.6 strip pixels: against a tile
    # length of 48 the small end is 20% short, past run_stretch, so no fit may take it.
    from referee.vision.chain import _fit, _spread

    n, lo, hi, tiles, taper = 400, 21.0, 357.0, 8, -0.08
    profile = np.full(n, 2.0)
    profile[: int(lo)] = profile[int(hi) + 1:] = 60.0
    for k in range(1, 2 * tiles):
        profile[round(lo + float(_spread(np.array(k / (2 * tiles)), taper)) * (hi - lo))] += 20.0
    profile = cv2.GaussianBlur(profile.reshape(1, -1), (0, 0), 1.0).ravel().astype(np.float32)
    config = VisionConfig()
    fit = _fit(profile, 48.0, 33.0, 358.0, 7, config, -math.inf, math.inf, 0.1)
    assert fit is not None
    a, b, count, tried = fit
    period = (b - a) / count
    assert abs(period * (1 + abs(tried)) / 48.0 - 1) <= config.run_stretch
    assert abs(period * (1 - abs(tried)) / 48.0 - 1) <= config.run_stretch


def test_the_face_beyond_a_run_is_its_own_only_where_nothing_lies_beside_it() -> None:
    # Face runs on 20 strip pixels past the packed start (30): the run's own end tile, unless
    # something shows just beside the run there (a double across its end, a tile at a turn).
    from referee.vision.chain import _face_ends

    xs = np.arange(340)
    profile = np.where((xs < 10) | (xs > 300), 60.0, 2.0).astype(np.float32)
    lo, hi = _face_ends(profile, 30.0, 290.0, 30.0)
    assert lo == 10.0 and hi == 300.0
    beside = np.where(xs < 30, 60.0, 3.0).astype(np.float32)
    lo, hi = _face_ends(profile, 30.0, 290.0, 30.0, beside)
    assert lo == 30.0 and hi == 300.0
    lo, _ = _face_ends(profile, 30.0, 290.0, 12.0)  # the face runs on past what was asked:
    assert lo == 30.0  # no end seen, none taken (a table as light as the faces)


def test_a_run_between_two_doubles_laid_across_it_ends_at_them() -> None:
    # A run's profile along its line (ink across it, strip pixels) as a black set shows it: faint
    # seams, bright dividers, and no end where the face gives way, since at each end the face runs
    # on into a double laid across the line. The tiles lie with gaps (each period a little over
    # a tile's length), and the packer put its boxes a tile's length apart from the first double.
    # The boxes square to the run at either end (the doubles) say where it ends: fitted between
    # them its ends and count are right; fitted on its lines alone, its dividers pull it astray.
    from referee.vision.chain import _fit

    config = VisionConfig()
    n, length, tiles, start = 520, 48.0, 8, 40.0
    xs = np.arange(n, dtype=np.float64)
    astray = 0
    for seed in range(20):
        rng = np.random.default_rng(6200 + seed)
        seams = start + np.concatenate([[0.0], np.cumsum(length * (1 + rng.uniform(0.0, 0.07, tiles)))])
        profile = 3.0 + rng.normal(0, 0.5, n)
        for k in range(tiles):
            profile += 30.0 * np.exp(-0.5 * ((xs - (seams[k] + seams[k + 1]) / 2) / 0.8) ** 2)
            if k:
                profile += 6.0 * np.exp(-0.5 * ((xs - seams[k]) / 0.8) ** 2)
        packed = (start, start + tiles * length)
        args = (profile.astype(np.float32), length, *packed, tiles, config, start, float(seams[-1]), 0.06, None)
        fit = _fit(*args, (True, True))
        assert fit is not None
        lo, hi, count, _ = fit
        assert (count, round(abs(lo - start)) <= 3, round(abs(hi - seams[-1])) <= 3) == (tiles, True, True)
        alone = _fit(*args, (False, False))
        assert alone is not None
        astray += alone[2] != tiles or abs(alone[0] - start) > 3 or abs(alone[1] - seams[-1]) > 3
    assert astray >= 10


def test_a_run_packed_short_takes_the_length_its_seams_are_spaced_by() -> None:
    # The packing reads a line's tile length off the width of the face mask; where the mask
    # leaves out the faces' rims it falls short (rendered hand 9301-000, coloured set on
    # laminate: boxes 12% short, every tile of the line read at 0.52 to 0.57, and an illegal
    # placement went unflagged). The run's fit finds the period from its seams and dividers,
    # and the boxes take it.
    from referee.vision.chain import align_runs
    from referee.vision.split import Box

    image, truth = seen_from_a_side(np.random.default_rng(6400), 7, 0.0)
    short = [Box(d.center[0], d.center[1], 0.88 * L, 0.44 * L, 0.0, True) for d in truth]
    boxes, aligned, _ = align_runs(image, short, VisionConfig())
    assert aligned == set(range(len(truth)))
    period = float(np.median(spacing(truth)))
    for box, d in zip(sorted(boxes, key=lambda b: b.cx), truth, strict=True):
        assert abs(box.length / period - 1) < 0.05
        assert math.dist((box.cx, box.cy), d.center) < 0.08 * L
    # A run packed at the tiles' own length keeps it.
    boxes, _, _ = align_runs(image, [Box(d.center[0], d.center[1], L, L / 2, 0.0, True) for d in truth],
                             VisionConfig())
    assert all(abs(b.length / period - 1) < 0.05 for b in boxes)


def test_a_run_read_unsure_is_read_again_fitted_to_end_at_its_doubles() -> None:
    # Rendered black sets on laminate (held-out line 27, 4032x3024): a run between two doubles
    # laid across it was fitted a little short, and its boxes drifted onto its seams. Fitted to
    # end at the doubles it reads its tiles (align_runs gives that fit beside the first; the
    # reading tells which lies on the tiles). A run read surely where it lies stays there.
    from referee.vision.reading import read_boxes
    from referee.vision.split import Box

    image, truth = seen_from_a_side(np.random.default_rng(6300), 7, 0.0)
    h, w = image.shape[:2]
    config = VisionConfig()
    on = [Box(d.center[0], d.center[1], L, L / 2, 0.0, True) for d in truth]
    first = truth[0].center[0] - L / 2
    short = [Box(first + (k + 0.5) * 0.88 * L, d.center[1], L, L / 2, 0.0, True) for k, d in enumerate(truth)]
    run = list(range(len(truth)))
    assert problems(read_boxes(image, short, 1.0, config, w, h), truth) != []
    assert problems(read_boxes(image, short, 1.0, config, w, h, abutting=[(run, on)]), truth) == []
    assert problems(read_boxes(image, on, 1.0, config, w, h, abutting=[(run, short)]), truth) == []
    # Off by its setting (run_rephase 0: no run is read again), the boxes stand as they are.
    assert problems(read_boxes(image, short, 1.0, VisionConfig(run_rephase=0), w, h, abutting=[(run, on)]), truth) != []
