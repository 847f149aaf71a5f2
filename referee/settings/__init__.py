"""The deployment settings: ``config.toml`` (``/etc/domino-referee/`` on a Raspberry Pi,
``~/.config/domino-referee/`` on a laptop) read into frozen values, every bad value a
``SettingsError`` naming the file and the key; and the ``referee watch`` options they mean."""

from referee.settings.args import expand_settings, settings_path, settings_to_args
from referee.settings.load import (
    SYSTEM_PATH,
    data_folder,
    default_settings_path,
    load_settings,
    override,
    parse_settings,
    rules_of,
    user_path,
)
from referee.settings.model import (
    CameraSettings,
    DoctorSettings,
    HouseRules,
    RecordsSettings,
    ServerSettings,
    Settings,
    SettingsError,
    SoundSettings,
    TableSettings,
)

__all__ = [
    "SYSTEM_PATH", "CameraSettings", "DoctorSettings", "HouseRules", "RecordsSettings", "ServerSettings", "Settings",
    "SettingsError", "SoundSettings", "TableSettings", "data_folder", "default_settings_path", "expand_settings",
    "load_settings", "override", "parse_settings", "rules_of", "settings_path", "settings_to_args", "user_path",
]
