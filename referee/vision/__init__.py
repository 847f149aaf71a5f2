"""Vision: frame -> tiles and pips (numpy and OpenCV only; never the rules engine)."""

from referee.vision.config import ConfigError, VisionConfig, load_config
from referee.vision.detect import ImageError, detect
from referee.vision.types import Detection, FaceDown, FaceModel, TileReading

__all__ = ["ConfigError", "Detection", "FaceDown", "FaceModel", "ImageError", "TileReading", "VisionConfig", "detect",
           "load_config"]
