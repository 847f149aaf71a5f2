"""Every threshold and size the vision stages use, in one frozen value read from a JSON file or
a calibration profile. Nothing in the stages is tuned by a constant of its own."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any


class ConfigError(ValueError):
    """A bad configuration value or file; the message names the file and the field."""


@dataclasses.dataclass(frozen=True)
class VisionConfig:
    # The tile set: face size in millimetres (length, width); the ratio is what matters without a profile.
    tile_mm: tuple[float, float] = (48.0, 24.0)
    max_pips: int = 9
    # Tile size in pixels (length) when known; None estimates it from the frame.
    tile_px: float | None = None
    # A profile's (or tile_px's) tile size is used unless the frame's own tiles differ from it by
    # more than this factor (a profile made for another camera height or table).
    profile_trust: float = 1.5
    # A prior face model (detect(prior=...): what a session's recent frames agree on) replaces
    # the frame's own estimate only where that strays from it: a tile length more than
    # prior_length (a share) from the prior's, or a face colour more than prior_colour standard
    # deviations (Mahalanobis, under the prior's spread) from its colour. Elsewhere the frame's
    # own estimate stands (detection is sensitive to small changes in it; a nearby model read
    # some frames worse, some better).
    prior_length: float = 0.15
    prior_colour: float = 3.0
    # The prior also carries the table's colour (Lab, 8-bit, at the frame's middle). Where the
    # frame's own table model lies more than prior_table from it (the frame's largest region of
    # one colour was the floor round the table this time: which of a wood table's shades or the
    # floor makes it is a matter of the sensor's noise), the model of the region nearest it in
    # colour stands instead, of those within prior_table of it the one explaining most of the
    # frame (0 turns this off).
    prior_table: float = 12.0
    # Smallest and largest tile length (pixels) the size estimate may settle on.
    min_tile_px: float = 24.0
    max_tile_px: float = 800.0
    # Segmentation runs on the frame shrunk to at most this many pixels on its longer side (pips
    # are read at full size) ...
    work_side: int = 1280
    # ... and frames whose tiles are shorter than this (pixels) are enlarged to it for segmentation.
    work_tile_px: float = 40.0
    # A lamp's bright patch on the table, which the table's smooth (quadratic) model cannot
    # follow, is added to the model: the table's lightness above the model, smoothed by a
    # Gaussian of lamp_blur cells of the 96 x 54 grid the table is fitted on (a sixteenth of the
    # frame's width), where it rises lamp_least times the table's own spread above it somewhere
    # (less is the table's texture). Left out, a lit patch is foreground, and may be taken for
    # an arm or for faces. lamp_blur 0 turns this off.
    lamp_blur: float = 6.0
    lamp_least: float = 2.0
    # Table-vs-tile: a pixel is tile face when its colour is likelier the face's than the table's
    # and within this many standard deviations (Mahalanobis) of the face colour.
    face_reach: float = 4.0
    # ... or further than this many standard deviations from the table and its shadows.
    table_reach: float = 6.0
    # A shadow darkens the table to no less than this share of its lightness.
    shadow_depth: float = 0.45
    # ... and keeps its hue: within this distance (Lab a, b units) of the table's.
    shadow_chroma: float = 10.0
    # A pip's rim (its bevel, blurred between the black pip and the face) is darker than face and
    # table, and may look like neither: dark spots smaller than pip_area of a tile length squared
    # (pips) are grown by up to pip_rim of a tile length into pixels of the face's hue (their
    # a, b within rim_tint of the face's chroma scaled by rim_least to rim_most), so a face is
    # not cut apart along its rows of pips. pip_rim 0 turns this off.
    pip_area: float = 0.02
    pip_rim: float = 0.06
    # A pip on a face whose outline is broken beside it (a shadowed bevel) is no hole to fill:
    # spots that differ from the table, round, pip_least to pip_area of a tile long, with at
    # least pip_ring of the ring round them face, are taken for pips. pip_ring 0 turns it off.
    pip_least: float = 0.05
    pip_ring: float = 0.2
    # A streak of glare across a glossy dark face cuts it in two: the strips between the dark
    # face and the white glare have the table's lightness. Gaps in the face mask narrower than
    # glare_gap of a tile width, of light pixels that differ from the table, are no shadow on
    # it and lie further than glare_tint (Lab units) from every blend of the face's colour and
    # the table's (where two backs nearly touch), are face where they cut across a face (half
    # a tile width long, beside a piece too small to be a tile, or beside the streak's white
    # core lighter than face and table by glare_tint; segment.glare_gaps).
    # glare_gap 0 turns this off.
    glare_gap: float = 0.3
    glare_tint: float = 8.0
    rim_tint: float = 3.0
    rim_least: float = 0.25
    rim_most: float = 1.3
    # A blob is a tile when its area is within these shares of one tile face's area.
    min_area_share: float = 0.55
    max_area_share: float = 1.45
    # A blob of touching tiles may leave at most (1 - min_cover) of a tile uncovered, slivers aside.
    min_cover: float = 0.5
    # ... or at most this share of a long blob (a chain with turns).
    leftover_share: float = 0.35
    # A packed tile must hold a rectangle this share of its size (slack for tiles a little askew).
    pack_fit: float = 0.7
    # A blob no packing covers is parted where it is narrower than up to this share of a tile
    # width (tiles touching only at a corner, as in a pile of backs), when every part is shaped
    # like one tile; eroded by 0.4, 0.6, 0.8 and 1 of it, the shallowest that parts it (0.6 left
    # four backs of a rendered pile, touching corner to side, one blob; 0 turns this off).
    apart: float = 0.75
    # Opening the face mask with a disc this share of the tile length cuts shadow slivers away.
    open_share: float = 0.06
    # A straight run of packed tiles is re-spaced as one (run_reach 0 turns this off): its ends
    # move by up to run_reach of a tile length, its period may differ from the tile length by
    # run_stretch, and the lines along it (seams, dividers) weigh run_lines against its ends.
    run_reach: float = 0.2
    run_stretch: float = 0.15
    run_lines: float = 1.0
    # A run read mostly unsure may be packed half a tile off its tiles (every box over a seam):
    # it is read again moved half a tile either way, and taken so when that reads at least
    # run_rephase more tiles surely, no double among them (0 turns this off).
    run_rephase: int = 2
    # A run's span may hold up to run_recount tiles more or fewer than were packed in it (the
    # frame's tile length is off where the run lies), its period still within run_stretch.
    run_recount: int = 1
    # Where the face runs on past a run's packed ends (boxes a little long, as a tile length
    # taken off backs whose sides show makes them, leave the run's end tiles short), its ends
    # are also looked for out to where the face gives way, up to run_face of a tile length.
    run_face: float = 0.6
    # ... and its period may change evenly along it, from (1 + t) to (1 - t) times the mean, for t
    # up to run_taper times the run's share of the frame's longer side (0 turns this off): seen
    # from a side, a long run's far tiles look smaller. Half the tangent of a 20 degree tilt
    # over a focal length of 0.6 frame widths (a wide webcam) is 0.3.
    run_taper: float = 0.3
    # ... after which each of its tiles still slides alone by up to this share of its length.
    run_refine: float = 0.1
    # A run whose packed end lies within run_abut of a tile length of a box square to it across
    # its line (a double laid crosswise) ends at that box (0 turns this off).
    run_abut: float = 0.5
    # Each tile's rectangle is fitted to its face within this share of its sides.
    snap_reach: float = 0.15
    # The tiles are of one set, which holds each tile once: two read alike are one tile seen
    # twice, or one of them is misread (False for a table playing with two sets).
    one_set: bool = True
    # ... and two read alike with centres nearer than one_set_place of a tile's length lie at
    # one place (end to end they lie a length apart).
    one_set_place: float = 0.6
    # Rectified tile: pixels per half-square side.
    cell_px: int = 32
    # Glare: the pip evidence is read with what a disc glare_disc times as wide as the pips can
    # fit into taken out of the face (a broad streak of glare over a black tile, shading); 0 turns
    # it off. pip_width is the set's pip width (at half height) as a share of the tile's width;
    # 0: measured in each frame on its tiles read surely, from at least pip_width_least pips
    # (else no disc is used).
    glare_disc: float = 1.4
    pip_width: float = 0.0
    pip_width_least: int = 5
    # Pip evidence: a grid position holds a pip when its contrast exceeds this share of the
    # tile's pip contrast; a tile is uncertain when the margin between the best and the second
    # best reading is below min_margin.
    pip_share: float = 0.5
    # A tile shows pips at all when its strongest place beats this share of the frame's pip contrast.
    pip_floor: float = 0.35
    # ... and a half's places are judged against pip_share of its own strongest peak when that
    # peak beats this share of the frame's pip contrast (faint yellow pips on an ivory set whose
    # other numbers are dark); below it, against pip_floor of the frame's contrast, and a blank
    # read so is only as sure as that peak lies below half_floor (from sure at nothing to unsure
    # at half_floor: a coloured set's faint orange six beside a red three was read a sure blank).
    half_floor: float = 0.25
    # The frame's pip contrast (the strongest place of its typical tile) is a back's grain, not a
    # pip, when under backs_below of the strongest peak of the typical tile showing pips: backs
    # outnumber faces (a boneyard of 14 beside a line of 3), and their grain read as pips and
    # their seams as dividers would make double blanks of them (0 turns this off).
    backs_below: float = 0.5
    # A face whose strongest pip is under pip_floor (a coloured set's pale yellow six) is still
    # read when that pip beats faint_floor of the frame's contrast and the pips above pip_share
    # of it, faint_least or more in all, lie on a number's places on both halves (faint_floor 0
    # turns this off). A face a little above pip_floor whose pips make such a pattern is as sure
    # as the pattern, not only as its margin over pip_floor.
    faint_floor: float = 0.2
    faint_least: int = 4
    # A tile read unsure is read again with its rectangle moved along and across by up to
    # relook_shift of its sides (relook_steps each way); it is read when relook_support of those
    # readings are sure and all the sure ones agree (relook_support 0 turns this off).
    relook_shift: float = 0.08
    relook_steps: int = 2
    relook_support: int = 2
    # A tile shorter than wide_below_px is looked at in finer steps (relook_fine_steps each way,
    # this look and the wide one below): its box lies within a few pixels of the face, and a
    # pixel moves its pips a good share of their size, so readings a step apart differ. A larger
    # tile keeps relook_steps: its box that far off is misplaced, and more looks about it give a
    # neighbour's pips more chances to gather support.
    relook_fine_steps: int = 3
    # A second look's reading must account for the pips round it: more strong pips in the box
    # widened to relook_room of its width than the reading has say the box lies off the tile
    # (half on a neighbour, or past pips it cut off), and the first reading stands (1 turns
    # this off).
    relook_room: float = 1.3
    # Found on no divider (below), a tile read unsure is read on its pips (see pipfit) before it
    # is moved about: its rectangle moved to where the pips found in it, widened to pip_fit_room
    # of its sides, centre (each half's pip pattern is symmetric about the half's centre),
    # pip_fit_steps times over; the reading there stands as one on a divider does. Not when the
    # two halves' pips lie further apart or nearer than half a tile by more than pip_fit_spread
    # of it, or the line through them turns by more than pip_fit_turn degrees (a packed
    # rectangle, which lies along its blob's edges, by more than pip_fit_packed_turn in all: its
    # own tile's pips do not turn it far, a neighbour's pip taken in does), or the rectangle
    # would move by more than pip_fit_reach of a tile length, or fewer than pip_fit_least pips
    # show (one or two, a speck or a back's grain, placed a sure 1-1 on a rendered pastel back;
    # 0 steps turns this off).
    pip_fit_room: float = 1.2
    pip_fit_steps: int = 3
    pip_fit_least: int = 3
    pip_fit_spread: float = 0.25
    pip_fit_turn: float = 10.0
    pip_fit_packed_turn: float = 5.0
    pip_fit_reach: float = 0.35
    # ... and then on the sharp edges of its face's outline (a shadow's edge is soft): two
    # lines along it a tile's width apart, within edge_across of its width from its middle,
    # then two across it a length apart, within edge_along of its length, each width and length
    # within edge_size of the rectangle's, edge_rounds times over (0 turns this off); the weaker
    # of each pair at least edge_stand times as sharp as the face between them is in the median
    # (a plain table shows no such edges). The reading there stands as one on a divider does.
    edge_rounds: int = 2
    edge_stand: float = 1.5
    edge_across: float = 0.6
    edge_along: float = 0.3
    edge_size: float = 0.15
    # A tile packed among touching ones gets the second look too, but its rectangle is less sure
    # of its place: it needs relook_packed_support agreeing sure readings (of the 24; of the 48
    # in fine steps), and no double is taken from a rectangle in a straight run (moved along a
    # line, it straddles a seam, and the halves either side of a seam in a legal line match),
    # nor a double blank from any. 0 turns it off.
    relook_packed_support: int = 6
    # Still unsure after that, a tile gets a wider look: its rectangle moved along by up to
    # wide_shift of its length (relook_steps each way) and across by up to wide_across of its
    # width (one step each way), each at its length and stretched by wide_stretch (a small
    # tile's rectangle lies a few pixels off, or ends a few short: its far pips fall outside).
    # It is read when wide_support of those readings are sure and all the sure ones agree, with
    # the same bars on doubles and blanks as above (wide_support 0 turns this off). Only tiles
    # shorter than wide_below_px (full-resolution pixels) get it: boxes end within a few pixels
    # of the faces, a big share of a small tile only; a large tile's box that far off is
    # misplaced, and moving it about may find a neighbour's pips.
    wide_below_px: float = 96.0
    wide_shift: float = 0.1
    wide_across: float = 0.05
    wide_stretch: float = 1.08
    wide_support: int = 5
    min_margin: float = 0.18
    min_confidence: float = 0.5
    # A tile whose halves are shorter than this (full-resolution pixels) is uncertain whatever its
    # reading: its pips are then two or three pixels across, and blur and JPEG erase or forge them.
    # (14: tiles 36 px long at 1280 x 720 read right as often as larger ones, with no sure wrong
    # reading more in three rendered sets; 16 left whole hands unread.)
    min_cell_px: float = 14.0
    # A tile whose grid reading disagrees with its pip count keeps this share of its confidence.
    disagree_confidence: float = 0.0
    # ... unless the grid's number lies between the peaks counted above the half's cut and those
    # above count_slack of it (a faint pip of a coloured set just under the cut; 1 is strict).
    count_slack: float = 0.7
    # The pip grid is searched this far (share of a half) around the rectangle's own alignment.
    grid_search: float = 0.0
    # Face down: no divider and no pips; the divider shows when its contrast exceeds this share
    # of the frame's pip contrast, or this many times the face's noise. A divider is a thin line:
    # blurred to a pip's scale it keeps a fifth to a third of a pip's contrast (a double blank's
    # divider measured 0.35-0.9 of the old 0.35 share; backs stayed below 0.21 of it).
    divider_share: float = 0.175
    divider_snr: float = 4.0
    # ... or, as a thin line (a groove: a double blank's only mark), when its column of ink
    # stands divider_line times the spread of the columns either side above them (0 turns this off).
    divider_line: float = 10.0
    # A lone tile read unsure is looked for again on its divider (divider_span 0 turns this off):
    # a line across the rectangle, within divider_reach of its length from its middle, turned by
    # at most divider_turn degrees, spanning divider_span of its width. Centred there, the face
    # is fitted between divider_least and divider_most of the rectangle's sides, and must come
    # out in the set's proportions within divider_aspect (a share either way). The reading there
    # stands when sure and the second look (relook_support) around it agrees; when unsure, the
    # second look around it is the reading.
    divider_turn: float = 10.0
    divider_reach: float = 0.25
    divider_span: float = 0.4
    divider_least: float = 0.7
    divider_most: float = 1.25
    divider_aspect: float = 0.25
    # ... and stands out from the columns beside it by this share of the strip's darkest ink
    # (pips: a divider is as dark as they are; the edge of a back or of the table is not a line).
    divider_clear: float = 0.25
    # ... and a packed tile (touching others) too, its divider within divider_packed_reach of
    # the middle (a seam lies half a tile away), with the packed tiles' second-look bar (0 turns
    # this off).
    divider_packed_reach: float = 0.15
    # When no divider shows on the rectangle, it is looked for on the rectangle slid this share
    # of its width to either side (0 turns this off): the blob of a tile seen from one side holds
    # its side wall, and a rectangle packed into it may sit half on the wall, cutting the divider.
    divider_slide: float = 0.3
    # Occlusion: a foreground blob from the frame edge over the table, bigger than this many tiles.
    occluder_tiles: float = 6.0
    # The table's outline is the hull of the regions that match the table model and are at least
    # this share of the largest such region (grain and a lamp's fall-off cut a table into pieces).
    table_piece: float = 0.2
    # ... or foreground wider than arm_core tile lengths that is neither a found tile (grown by
    # arm_margin of a tile length on every side: its shadow and sides) nor the table's hue, over
    # the table and bigger than arm_tiles tiles. An arm is 1.5 to 2 tile lengths wide; a line of
    # tiles half a length, two unfound tiles side by side one length.
    arm_core: float = 1.2
    arm_margin: float = 0.15
    arm_tiles: float = 4.0
    # ... where foreground of the table's hue counts too when darker than arm_dark of the
    # table's lightness there (brown skin on pale wood; 0 turns this off).
    arm_dark: float = 0.7
    # Neither cue counts a region wider than this many tile lengths (an arm is at most about 2.5,
    # a hand with a sleeve 3): it is the table itself when the table model was fitted to the floor.
    arm_widest: float = 6.0
    # The arm cuts the table's largest region in two, and that region's hull may stop where the
    # arm comes in: the wide-foreground cue is then tried again over the hull of all the table's
    # pieces (table_piece), counting no part wider than this many tile lengths (that hull may take
    # in patches of a floor like the table, and the floor round it is wider than any arm; 0 turns
    # this second try off).
    arm_piece_widest: float = 4.0
    # Neither cue counts a part that hugs the table's rim (or the frame's edge): its body (what
    # of it is wider than arm_hug_body tile lengths: a line of tiles, half a length wide with its
    # sides and shadow under that, is left out) reaching no deeper into the table than
    # arm_hug_deep times the part's thickness, and at least arm_hug_long times longer than that
    # depth. An arm reaches in across the rim; a band along it is the table's margin in other
    # light (a lamp's fall-off the model misses) or the floor that the table's outline took in
    # (0 turns this off).
    arm_hug_long: float = 3.0
    arm_hug_deep: float = 1.25
    arm_hug_body: float = 0.75
    # A blob bigger than this many tiles is not a heap of tiles. A whole double-six set may touch
    # in one line (28 tiles), each face's mask grown by its rim and the frame's length resting on
    # a far, smaller tile: then it holds some 40 tiles' worth, and must still be split.
    max_blob_tiles: float = 60.0
    # A line of tiles running off the frame crosses its edge along at most this many tile lengths
    # (a shallow angle, a double crosswise); a blob lying along the edge for longer is the floor
    # beyond the table (or an arm), never tiles, whatever its colour.
    edge_contact: float = 2.5
    # Packing places first the tiles that are locked in place (a double crosswise on a line, a
    # tile boxed in): where a rectangle of pack_lock of a tile's size fits and can slide by at
    # most pack_slide of its sides (pack_lock 1 turns this off). A locked tile is fitted to its
    # face along its length too, as a lone tile is: the frame's length may be off where it lies
    # (a far 2-2 across a line, boxed a sixth too long, read a sure 1-2).
    pack_lock: float = 0.8
    pack_slide: float = 0.3
    # A blob of touching tiles is packed with tiles as wide as the blob itself is where it is
    # narrower than the frame's tiles (the tile size varies across a tilted frame), by at most
    # this factor (1 turns this off; a wider blob holds the tiles' merged shadows and sides).
    local_size: float = 1.25
    # The tile length is fitted across the frame (a tilted camera sees the far tiles smaller)
    # when at least size_tiles tiles lie alone, and held within size_margin of their lengths;
    # with fewer it is the same everywhere.
    size_tiles: int = 6
    size_margin: float = 0.15
    # A tile length resting on fewer than three lone tiles that strays more than size_check from
    # the length the face colour was found with is checked: both are tried, and the one reading
    # more tiles surely stands (0 turns this off).
    size_check: float = 0.1
    # The tiles read surely show the tile length by their pips, free of side walls and shadows:
    # where it strays more than pip_length from the length read at, the frame is read again at
    # it (0 turns this off). Not with a prior: the frames before settle the length.
    pip_length: float = 0.05
    # A frame that leaves some tile unsure is read again on the next likeliest face colour (the
    # colour class whose blobs look next most like tiles: its side walls and shadows may outdo a
    # pale set's faces), up to face_tries guesses in all; a reading with more tiles read surely
    # and none more left unsure replaces the one held (1 turns this off). Not with a prior: the
    # frames before agree on the faces; a session reads with 1 (session.faces.session_vision).
    face_tries: int = 2
    # When no tile lies alone, the face colour is the class of arms holding pips: an arm is as
    # wide all along, the low (30th percentile) height of its distance ridge at least this share
    # of the high (70th); a speckled patch of table is not.
    arm_even: float = 0.75
    # ... measured on its outline smoothed (opened) by a disc arm_smooth of its width across:
    # pips at a face's edge bite notches that raise spurs on the ridge (small tiles, where a pip
    # is a good share of the width), and make a chain look uneven (0 turns this off).
    arm_smooth: float = 0.4
    # ... and is mostly face: its holes (pips, divider) leave at least this share of its outline filled.
    arm_solid: float = 0.5
    # ... its holes filled as face when no longer than arm_hole of twice its usual thickness
    # (pips, the divider: within one tile); a longer hole is table that a line turning back on
    # itself closes round (0: all).
    arm_hole: float = 1.0
    # Where tiles may lie, when the face colour is chosen: the table's largest region, less the
    # foreground from the frame's edge; foreground narrower than seam_px work pixels (a wood
    # table's seams between planks, which part the table into strips and join the tiles they
    # touch to the floor) is left out first (1 turns this off).
    seam_px: int = 5
    # Its width is twice the usual height of the ridge where it stands at least arm_ridge of
    # its highest: the spurs into its corners and the maxima a ragged outline raises along its
    # edge run lower; where tiles cross it runs higher, by less than twice.
    arm_ridge: float = 0.5
    # Faces the set's colour missed (a coloured set's tints differ from tile to tile) are
    # looked for by shape in what differs from the table at all: a blob holding no tile found,
    # filling at least shape_fill of its rectangle, its sides within shape_size (either way) of
    # those of the blobs holding one lone tile found (at least shape_samples of them), that
    # reads as a face (shape_size 0 turns this off).
    shape_size: float = 0.15
    shape_samples: int = 3
    shape_fill: float = 0.85
    # A double blank whose halves differ in colour by more than blank_halves (Lab, hue weighted:
    # one tile is of one material; a box half off a back, or across two backs, is not) is
    # uncertain (0 turns this off).
    blank_halves: float = 20.0
    # Where backs outnumber faces, a double blank against the end of a face read surely is
    # reported uncertain (a box straddling two backs reads their seam for a divider), unless no
    # other box without pips (a back, or another blank) lies within lone_blank tile lengths of
    # it: a box across two backs has their other halves beside it (0 turns this off).
    lone_blank: float = 1.5
    # Backs packed together (side by side, end to end) stand only where a seam parts them from
    # one at least: a line at their meeting standing back_seam robust deviations of the pixels
    # beside it from them (a shadow strip packed into backs shows none; 0 turns this off).
    # Backs turned more than back_seam_turn degrees to each other are not packed so: a strip's
    # rectangles come out straight.
    back_seam: float = 4.0
    back_seam_turn: float = 5.0
    # Tiles are looked for again on divider bars (referee.vision.bars, .rescue) that no tile read
    # surely holds, nor a face-down tile: at most bar_most of them (0 turns this off). A bar stands
    # bar_ink lightness levels off the mean over a window of bar_window of the frame's longer side,
    # at least bar_aspect times as long as thick, filling bar_fill of its rectangle and bar_least_px
    # long. Its tile is first taken as wide as the tiles read surely (with none, bar_share of the
    # width is the bar's length), and the bar spans bar_least of that width at least; the face is
    # fitted round a divider within bar_reach of its length from the bar, and must come out within
    # bar_size (a share) of the length of the tiles read surely (with none, of the others fitted).
    # The tiles read surely give the length only when there are bar_known of them; then at most
    # bar_most_known bars are fitted, those nearest a divider's length first.
    # Its face stands bar_apart (Lab, hue weighted) from a band beside one of its sides at least
    # (a patch of a wood table boxed on a streak of its grain stands apart from nothing), and its
    # halves differ in colour by at most bar_halves (as blank_halves: a box across the table's
    # edge, its dark rim for a divider, is half floor). It lies on another tile where they share
    # bar_over of the smaller's area (bar_near, for a tile read unsure under one read surely).
    # Where tiles found so join the frame and bar_known tiles read surely agree on a length, a
    # face-down tile or a tile read unsure shorter than that by more than bar_small (a share) is
    # no tile: the frame was read at a length it got wrong, and its boxes are pieces of faces and
    # shadows (0 keeps them all).
    bar_most: int = 24
    bar_ink: float = 40.0
    bar_window: float = 0.067
    bar_aspect: float = 4.0
    bar_fill: float = 0.7
    bar_least_px: float = 12.0
    bar_share: float = 0.75
    bar_least: float = 0.4
    bar_reach: float = 0.1
    bar_size: float = 0.2
    bar_over: float = 0.25
    bar_near: float = 0.1
    bar_apart: float = 12.0
    bar_known: int = 3
    bar_most_known: int = 6
    bar_halves: float = 45.0
    bar_small: float = 0.4

    def __post_init__(self) -> None:
        checks: list[tuple[str, bool]] = [
            ("tile_mm", len(self.tile_mm) == 2 and 0 < self.tile_mm[1] < self.tile_mm[0]),
            ("max_pips", self.max_pips in (6, 9)),
            ("tile_px", self.tile_px is None or self.tile_px > 0),
            ("profile_trust", self.profile_trust > 1),
            ("prior_length", 0 <= self.prior_length < 1),
            ("prior_colour", self.prior_colour >= 0),
            ("prior_table", self.prior_table >= 0),
            ("min_tile_px", 0 < self.min_tile_px < self.max_tile_px),
            ("work_side", 320 <= self.work_side <= 8192),
            ("work_tile_px", 16 <= self.work_tile_px <= 256),
            ("lamp_blur", 0 <= self.lamp_blur <= 48),
            ("lamp_least", self.lamp_least >= 0),
            ("run_rephase", self.run_rephase >= 0),
            ("face_reach", self.face_reach > 0),
            ("table_reach", self.table_reach > 0),
            ("shadow_depth", 0 < self.shadow_depth < 1),
            ("shadow_chroma", self.shadow_chroma > 0),
            ("pip_area", 0 < self.pip_area < 0.1),
            ("pip_rim", 0 <= self.pip_rim < 0.2),
            ("pip_least", 0 < self.pip_least < 0.2),
            ("pip_ring", 0 <= self.pip_ring <= 1),
            ("glare_gap", 0 <= self.glare_gap < 1),
            ("glare_tint", self.glare_tint >= 0),
            ("rim_tint", self.rim_tint > 0),
            ("rim_least", 0 < self.rim_least < self.rim_most),
            ("rim_most", self.rim_most > 0),
            ("min_area_share", 0 < self.min_area_share < 1 < self.max_area_share),
            ("min_cover", 0 < self.min_cover <= 1),
            ("apart", 0 <= self.apart < 1),
            ("leftover_share", 0 <= self.leftover_share < 1),
            ("pack_fit", 0.3 < self.pack_fit <= 1),
            ("open_share", 0 <= self.open_share < 0.3),
            ("arm_ridge", 0 <= self.arm_ridge < 1),
            ("shape_size", 0 <= self.shape_size < 1),
            ("shape_samples", self.shape_samples >= 1),
            ("shape_fill", 0 < self.shape_fill <= 1),
            ("blank_halves", self.blank_halves >= 0),
            ("lone_blank", 0 <= self.lone_blank <= 10),
            ("back_seam", self.back_seam >= 0),
            ("back_seam_turn", 0 <= self.back_seam_turn <= 45),
            ("bar_most", self.bar_most >= 0),
            ("bar_ink", self.bar_ink > 0),
            ("bar_window", 0 < self.bar_window < 1),
            ("bar_aspect", self.bar_aspect >= 1),
            ("bar_fill", 0 < self.bar_fill <= 1),
            ("bar_least_px", self.bar_least_px >= 2),
            ("bar_share", 0 < self.bar_share <= 1),
            ("bar_least", 0 < self.bar_least <= 1),
            ("bar_reach", 0 < self.bar_reach < 0.5),
            ("bar_size", 0 < self.bar_size < 1),
            ("bar_over", 0 < self.bar_over <= 1),
            ("bar_near", 0 < self.bar_near <= 1),
            ("bar_apart", self.bar_apart >= 0),
            ("bar_known", self.bar_known >= 1),
            ("bar_most_known", self.bar_most_known >= 0),
            ("bar_halves", self.bar_halves > 0),
            ("bar_small", 0 <= self.bar_small < 1),
            ("run_reach", 0 <= self.run_reach < 1),
            ("run_stretch", 0 <= self.run_stretch < 0.5),
            ("run_lines", self.run_lines >= 0),
            ("run_recount", 0 <= self.run_recount <= 2),
            ("run_face", 0 <= self.run_face <= 1),
            ("run_taper", 0 <= self.run_taper <= 1),
            ("run_refine", 0 <= self.run_refine < 0.5),
            ("run_abut", 0 <= self.run_abut <= 1),
            ("snap_reach", 0 <= self.snap_reach < 0.5),
            ("cell_px", 8 <= self.cell_px <= 128),
            ("glare_disc", self.glare_disc == 0 or 1 <= self.glare_disc <= 3),
            ("pip_width", 0 <= self.pip_width < 0.5),
            ("pip_width_least", self.pip_width_least >= 1),
            ("pip_share", 0 < self.pip_share < 1),
            ("pip_floor", 0 < self.pip_floor < 1),
            ("half_floor", 0 < self.half_floor <= self.pip_floor),
            ("backs_below", 0 <= self.backs_below < 1),
            ("faint_floor", 0 <= self.faint_floor < self.pip_floor),
            ("faint_least", self.faint_least >= 1),
            ("table_piece", 0 < self.table_piece <= 1),
            ("relook_shift", 0 <= self.relook_shift < 0.5),
            ("relook_steps", self.relook_steps >= 1),
            ("relook_fine_steps", self.relook_fine_steps >= 1),
            ("relook_room", 1 <= self.relook_room <= 2),
            ("pip_fit_room", 1 <= self.pip_fit_room <= 2),
            ("pip_fit_steps", self.pip_fit_steps >= 0),
            ("pip_fit_least", self.pip_fit_least >= 1),
            ("pip_fit_spread", 0 < self.pip_fit_spread < 1),
            ("pip_fit_turn", 0 <= self.pip_fit_turn <= 45),
            ("pip_fit_packed_turn", 0 <= self.pip_fit_packed_turn <= 45),
            ("pip_fit_reach", 0 < self.pip_fit_reach <= 1),
            ("edge_rounds", self.edge_rounds >= 0),
            ("edge_across", 0 < self.edge_across <= 1),
            ("edge_along", 0 < self.edge_along <= 1),
            ("edge_size", 0 < self.edge_size < 0.5),
            ("edge_stand", self.edge_stand >= 1),
            ("relook_support", self.relook_support >= 0),
            ("relook_packed_support", self.relook_packed_support >= 0),
            ("wide_below_px", self.wide_below_px >= 0),
            ("wide_shift", 0 <= self.wide_shift < 0.5),
            ("wide_across", 0 <= self.wide_across < 0.5),
            ("wide_stretch", 1 <= self.wide_stretch <= 1.5),
            ("wide_support", self.wide_support >= 0),
            ("min_margin", 0 <= self.min_margin < 1),
            ("min_confidence", 0 <= self.min_confidence <= 1),
            ("min_cell_px", self.min_cell_px >= 0),
            ("disagree_confidence", 0 <= self.disagree_confidence <= 1),
            ("count_slack", 0 < self.count_slack <= 1),
            ("grid_search", 0 <= self.grid_search < 0.25),
            ("divider_share", 0 < self.divider_share < 1),
            ("divider_snr", self.divider_snr > 1),
            ("divider_line", self.divider_line == 0 or self.divider_line > 1),
            ("divider_turn", 0 <= self.divider_turn <= 45),
            ("divider_reach", 0 < self.divider_reach < 0.5),
            ("divider_span", 0 <= self.divider_span <= 1),
            ("divider_least", 0 < self.divider_least < 1),
            ("divider_most", 1 <= self.divider_most <= 2),
            ("divider_aspect", 0 < self.divider_aspect < 1),
            ("divider_packed_reach", 0 <= self.divider_packed_reach < 0.5),
            ("divider_slide", 0 <= self.divider_slide <= 0.5),
            ("divider_clear", 0 <= self.divider_clear < 1),
            ("occluder_tiles", self.occluder_tiles > 0),
            ("arm_core", self.arm_core > 0),
            ("arm_margin", self.arm_margin >= 0),
            ("arm_tiles", self.arm_tiles > 0),
            ("arm_dark", 0 <= self.arm_dark < 1),
            ("arm_widest", self.arm_widest > self.arm_core),
            ("arm_piece_widest", self.arm_piece_widest == 0 or self.arm_piece_widest > self.arm_core),
            ("arm_hug_long", self.arm_hug_long == 0 or self.arm_hug_long >= 1),
            ("arm_hug_deep", self.arm_hug_deep > 0),
            ("arm_hug_body", 0 < self.arm_hug_body <= self.arm_core),
            ("max_blob_tiles", self.max_blob_tiles > 1),
            ("edge_contact", self.edge_contact > 0),
            ("pack_lock", 0.5 <= self.pack_lock <= 1),
            ("pack_slide", 0 < self.pack_slide < 1),
            ("local_size", self.local_size >= 1),
            ("size_tiles", self.size_tiles >= 3),
            ("size_margin", 0 <= self.size_margin < 1),
            ("size_check", self.size_check >= 0),
            ("pip_length", 0 <= self.pip_length < 1),
            ("one_set_place", 0 < self.one_set_place < 1),
            ("face_tries", 1 <= self.face_tries <= 4),
            ("arm_even", 0 <= self.arm_even <= 1),
            ("arm_smooth", 0 <= self.arm_smooth < 1),
            ("arm_solid", 0 <= self.arm_solid <= 1),
            ("arm_hole", self.arm_hole >= 0),
            ("seam_px", self.seam_px >= 1),
        ]
        for name, ok in checks:
            if not ok:
                raise ConfigError(f"{name}: bad value {getattr(self, name)!r}")

    @property
    def aspect(self) -> float:
        return self.tile_mm[0] / self.tile_mm[1]

    def replace(self, **changes: Any) -> VisionConfig:
        return dataclasses.replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        return {f.name: (list(v) if isinstance(v := getattr(self, f.name), tuple) else v)
                for f in dataclasses.fields(self)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "config") -> VisionConfig:
        """A config from a JSON object; unknown keys and wrong types are errors naming ``where``."""
        if not isinstance(data, Mapping):
            raise ConfigError(f"{where}: expected an object")
        fields = {f.name: f for f in dataclasses.fields(cls)}
        values: dict[str, Any] = {}
        for key, value in data.items():
            if key not in fields:
                raise ConfigError(f"{where}: unknown setting {key!r}")
            default = getattr(cls(), key)
            if key == "tile_mm":
                if not (isinstance(value, list) and len(value) == 2
                        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)):
                    raise ConfigError(f"{where}: {key}: expected [length, width] in mm")
                value = (float(value[0]), float(value[1]))
            elif key == "tile_px" and value is None:
                pass
            elif isinstance(default, bool):
                if not isinstance(value, bool):
                    raise ConfigError(f"{where}: {key}: expected true or false, got {value!r}")
            elif isinstance(value, bool):
                raise ConfigError(f"{where}: {key}: expected a number, got {value!r}")
            elif isinstance(default, int) and not isinstance(default, bool):
                if not isinstance(value, int):
                    raise ConfigError(f"{where}: {key}: expected an integer, got {value!r}")
            elif not isinstance(value, int | float):
                raise ConfigError(f"{where}: {key}: expected a number, got {value!r}")
            else:
                value = float(value)
            values[key] = value
        try:
            return cls(**values)
        except ConfigError as error:
            raise ConfigError(f"{where}: {error}") from None


def load_config(path: str | Path) -> VisionConfig:
    """Read a vision config file (a JSON object of settings; missing ones keep their defaults)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"cannot read config {path}: {error.strerror or error}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ConfigError(f"{path}: not valid JSON ({error})") from None
    return VisionConfig.from_json(data, str(path))
