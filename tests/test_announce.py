"""Spoken announcements with the real espeak-ng: every phrase of every language is speech of a
plausible length; voice settings are checked and can be overridden; the speaker says texts in
order on its own thread, waits for them on close, and after a real player's failure says so once
and stays quiet; ``referee say`` writes WAV files without overwriting any."""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import threading
import time
import wave
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from helpers import ok, one_error_line, referee

from referee.announce.players import CommandPlayer, check_audio, find_player, tone_wav
from referee.announce.speaker import Speaker
from referee.announce.synth import VoiceError, check_speech, synthesise, wav_seconds
from referee.announce.voices import VoiceConfig, VoiceConfigError, load_voices, voice_for
from referee.cli_announce import add_arguments, open_speaker
from referee.session.events import Event, Kind
from referee.session.phrases import FIVES, LANGUAGES, PHRASES, REASONS, Phrases

# -- what makes a WAV speech ---------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Sound:
    rate: int
    samples: np.ndarray

    @property
    def seconds(self) -> float:
        return len(self.samples) / self.rate

    @property
    def rms(self) -> float:
        return float(np.sqrt(np.mean(self.samples.astype(np.float64) ** 2)))

    def voiced_seconds(self, level: float = 1000.0) -> float:
        """Time spent in 20 ms windows loud enough to be a voice (of 32768 full scale)."""
        window = self.rate // 50
        frames = self.samples[:len(self.samples) // window * window].astype(np.float64).reshape(-1, window)
        return float(np.count_nonzero(np.sqrt(np.mean(frames ** 2, axis=1)) > level)) / 50


def read_wav(data: bytes) -> Sound:
    """A 16-bit mono WAV whose header sizes are the real ones, as ``wave`` reads it."""
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE"
    assert struct.unpack_from("<I", data, 4)[0] == len(data) - 8
    with wave.open(io.BytesIO(data)) as reader:
        assert (reader.getnchannels(), reader.getsampwidth(), reader.getcomptype()) == (1, 2, "NONE")
        rate = reader.getframerate()
        frames = reader.readframes(reader.getnframes())
        assert len(frames) == reader.getnframes() * 2
    return Sound(rate, np.frombuffer(frames, dtype="<i2"))


def assert_speech(text: str, data: bytes) -> None:
    sound = read_wav(data)
    assert 8000 <= sound.rate <= 48000, (text, sound.rate)
    assert max(0.3, 0.05 * len(text)) <= sound.seconds <= 0.25 * len(text) + 0.5, (text, sound.seconds)
    assert sound.rms > 1000, (text, sound.rms)
    voiced = sound.voiced_seconds()
    assert voiced >= 0.2 and voiced >= 0.25 * sound.seconds, (text, voiced, sound.seconds)


def test_the_speech_check_tells_silence_and_a_click_from_speech() -> None:
    speech = synthesise("Blocked!", voice_for("en"))
    assert_speech("Blocked!", speech)
    sound = read_wav(speech)
    silence = np.zeros_like(sound.samples)
    click = silence.copy()
    click[1000:1100] = 20000
    for samples in (silence, click):
        fake = io.BytesIO()
        with wave.open(fake, "wb") as writer:
            writer.setnchannels(1)
            writer.setsampwidth(2)
            writer.setframerate(sound.rate)
            writer.writeframes(samples.astype("<i2").tobytes())
        with pytest.raises(AssertionError):
            assert_speech("Blocked!", fake.getvalue())


# -- every phrase of every language ------------------------------------------------------------


class Seen(Mapping[object, str]):
    """A catalogue table that notes which of its entries were used."""

    def __init__(self, table: Mapping[object, str]) -> None:
        self.table, self.used = table, set[object]()

    def __getitem__(self, key: object) -> str:
        value = self.table[key]
        self.used.add(key)
        return value

    def __iter__(self) -> Iterator[object]:
        return iter(self.table)

    def __len__(self) -> int:
        return len(self.table)


EVERY_PHRASE = [
    *(Event(1, Kind.PLAY, tile="5-5", player=i % 4, points=points) for i, points in enumerate(FIVES)),
    *(Event(2, Kind.ILLEGAL, tile="6-5", reason=code, player=0, end="left") for code in (*REASONS, "no_such_rule")),
    Event(2, Kind.ILLEGAL, reason="mismatch", player=2),
    Event(2, Kind.ILLEGAL, tile="6-5", reason="mismatch"),
    Event(3, Kind.DRAW, player=0),
    Event(3, Kind.DRAW),
    Event(4, Kind.PASS, player=1),
    Event(5, Kind.BLOCKED),
    *(Event(6, Kind.HAND_END, winner=0, points=points) for points in (1, 2, 11, 22)),
    Event(6, Kind.HAND_END, winner=1, points=None),
    Event(6, Kind.HAND_END, winner=None, points=0),
    Event(6, Kind.HAND_END, winner=None, points=None),
    Event(7, Kind.MATCH_END, winners=(0,), scores=(105, 80)),
    Event(7, Kind.MATCH_END, winners=(0, 1, 2)),
    Event(7, Kind.MATCH_END, winners=(), scores=(3, 3, 3)),
    Event(7, Kind.MATCH_END),
    Event(8, Kind.UNFOLLOWED, reason="tiles moved", tiles=("6-3",)),
    Event(9, Kind.UNDO, reason="play"),
    Event(10, Kind.CORRECTION, tile="6-5", reason="6-6"),
    Event(10, Kind.CORRECTION),
    Event(11, Kind.REVEAL, player=1, tiles=("6-5", "2-0"), by_hand=True),
]


def every_text(lang: str) -> list[str]:
    """What the catalogue of ``lang`` can say, checking that it used every phrase, reason, fives
    word and plural form to say it."""
    loaded = Phrases.load(lang)
    text, reasons, fives = Seen(loaded.text), Seen(loaded.reasons), Seen(loaded.fives)
    phrases = dataclasses.replace(loaded, text=text, reasons=reasons, fives=fives)
    said = [line for event in EVERY_PHRASE if (line := phrases.say(event)) is not None]
    said += phrases.say_all([Event(11, Kind.BLOCKED), Event(11, Kind.HAND_END, winner=0, points=11)])
    assert text.used == set(PHRASES)
    assert reasons.used == {*REASONS, "other"}
    assert fives.used == set(FIVES)
    forms = {phrases.plural(e.points) for e in EVERY_PHRASE if e.kind is Kind.HAND_END and e.points}
    assert forms == set(range(len(phrases.point_forms)))
    return said


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_phrase_is_speech_of_a_plausible_length(lang: str) -> None:
    voice = voice_for(lang)
    texts = every_text(lang)
    assert len(texts) == len(set(texts)) >= 40
    with ThreadPoolExecutor(max_workers=4) as pool:
        wavs = list(pool.map(lambda text: synthesise(text, voice), texts))
    for text, wav in zip(texts, wavs, strict=True):
        assert_speech(text, wav)


def test_speech_is_the_same_every_time_and_tiles_are_said_without_the_dash() -> None:
    english = voice_for("en")
    assert english.spoken("Corrected: 6-5, 12-10.") == "Corrected: 6 5, 12 10."
    assert english.spoken("Score: 105 to 80.") == "Score: 105 to 80."
    assert synthesise("6-5", english) == synthesise("6 5", english)
    dashed = dataclasses.replace(english, tile_joiner="-")
    assert synthesise("6-5", dashed) != synthesise("6-5", english)


def test_a_stream_header_from_espeak_is_completed() -> None:
    raw = subprocess.run(["espeak-ng", "-v", "en-gb", "--stdout", "Undone."], capture_output=True,
                         check=True).stdout
    assert struct.unpack_from("<I", raw, 4)[0] != len(raw) - 8  # espeak-ng cannot seek back on a pipe
    wav = synthesise("Undone.", voice_for("en"))
    assert read_wav(wav).seconds == pytest.approx(wav_seconds(wav))


# -- voice settings ----------------------------------------------------------------------------


def test_built_in_voices_are_voices_espeak_has() -> None:
    listed = subprocess.run(["espeak-ng", "--voices"], capture_output=True, text=True, check=True).stdout
    names = {line.split()[1] for line in listed.splitlines()[1:]}
    voices = load_voices()
    assert set(voices) == set(LANGUAGES)
    for lang, voice in voices.items():
        assert voice.language == lang and voice.voice in names
        assert eval(repr(voice)) == voice
        assert check_speech(voice) is None


def write_json(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_user_file_overrides_some_settings_and_adds_languages(tmp_path: Path) -> None:
    user = write_json(tmp_path / "voices.json", {"pl": {"speed": 100},
                                                 "de": {"voice": "de", "speed": 170, "pitch": 50, "volume": 100}})
    voices = load_voices(user)
    assert voices["pl"] == dataclasses.replace(load_voices()["pl"], speed=100)
    assert voices["en"] == load_voices()["en"]
    assert voices["de"] == VoiceConfig("de", "de", 170, 50, 100)
    text = "Koniec meczu! Wygrywa Gracz 1."
    assert wav_seconds(synthesise(text, voices["pl"])) > 1.3 * wav_seconds(synthesise(text, voice_for("pl")))
    assert_speech("Das Spiel ist aus.", synthesise("Das Spiel ist aus.", voice_for("de", user)))


@pytest.mark.parametrize(("data", "message"), [
    ({"pl": {"speed": 1000}}, "pl.speed must be an integer from 80 to 450, got 1000"),
    ({"pl": {"speed": "fast"}}, "pl.speed must be an integer from 80 to 450, got 'fast'"),
    ({"en": {"pitch": 100}}, "en.pitch must be an integer from 0 to 99, got 100"),
    ({"da": {"volume": True}}, "da.volume must be an integer from 0 to 200, got True"),
    ({"sv": {"voice": "--stdout"}}, "sv.voice must be an espeak-ng voice name"),
    ({"sv": {"voice": "sv se"}}, "sv.voice must be an espeak-ng voice name"),
    ({"pl": {"tile_joiner": "\n"}}, "pl.tile_joiner must be a short one-line text"),
    ({"pl": {"loudness": 3}}, "pl.loudness is not a voice setting"),
    ({"de": {"voice": "de"}}, "de.speed is missing"),
    ({"Polish": {"voice": "pl"}}, "'Polish' is not a language code"),
    ({"pl": "fast"}, "pl must be an object of settings"),
    (["pl"], "must be an object of languages"),
])
def test_bad_voice_settings_are_refused_naming_the_key(tmp_path: Path, data: object, message: str) -> None:
    user = write_json(tmp_path / "mine.json", data)
    with pytest.raises(VoiceConfigError) as caught:
        load_voices(user)
    assert str(caught.value).startswith(f"{user}: ")
    assert message in str(caught.value)


def test_unreadable_voice_files_and_unknown_languages(tmp_path: Path) -> None:
    with pytest.raises(VoiceConfigError, match=r"cannot read voice settings .*absent.json"):
        load_voices(tmp_path / "absent.json")
    (tmp_path / "bad.json").write_text("{pl: 1}", encoding="utf-8")
    with pytest.raises(VoiceConfigError, match=r"bad.json is not a JSON file of voice settings"):
        load_voices(tmp_path / "bad.json")
    with pytest.raises(VoiceConfigError, match=r"no voice for language 'xx'; available: pl, en, da, sv"):
        voice_for("xx")
    with pytest.raises(ValueError, match=r"pl.speed must be an integer from 80 to 450, got 50"):
        VoiceConfig("pl", "pl", 50, 50, 100)


def test_synthesis_failures_say_what_to_do() -> None:
    with pytest.raises(VoiceError, match=r"no-such-espeak not found: install the Debian package espeak-ng"):
        synthesise("Hello.", voice_for("en"), espeak="no-such-espeak")
    with pytest.raises(VoiceError, match=r"espeak-ng \(voice xx-nowhere\): .*--voices"):
        synthesise("Hello.", VoiceConfig("xx", "xx-nowhere", 160, 50, 100))
    assert "install the Debian package espeak-ng" in (check_speech(voice_for("en"), "no-such-espeak") or "")


# -- players -----------------------------------------------------------------------------------

#: A player that is a real program: it writes the WAV it gets (on stdin, or the file named after
#: the output folder and gate) to the next numbered file there. Given a FIFO as the gate, the first
#: play waits until the test opens it.
RECORDER = """
import os, sys
folder, gate, source = sys.argv[1], sys.argv[2], (sys.argv[3] if len(sys.argv) > 3 else None)
n = len(os.listdir(folder))
if gate != "-" and n == 0:
    with open(gate) as wait:
        wait.read()
data = open(source, "rb").read() if source else sys.stdin.buffer.read()
with open(os.path.join(folder, f".{n:03d}"), "wb") as out:
    out.write(data)
os.rename(os.path.join(folder, f".{n:03d}"), os.path.join(folder, f"{n:03d}.wav"))
"""


def recorder(folder: Path, *extra: str, gate: Path | None = None) -> CommandPlayer:
    folder.mkdir(exist_ok=True)
    return CommandPlayer((sys.executable, "-c", RECORDER, str(folder), str(gate or "-"), *extra), name="recorder")


def stuck(gate: Path, margin: float) -> CommandPlayer:
    """A player that never finishes: it waits on a FIFO nobody opens."""
    os.mkfifo(gate)
    return CommandPlayer((sys.executable, "-c", "import sys; open(sys.argv[1]).read()", str(gate)), name="stuck",
                         margin=margin)


def recorded(folder: Path) -> list[bytes]:
    return [path.read_bytes() for path in sorted(folder.glob("*.wav"))]


def test_a_command_player_gets_the_wav_on_stdin_or_as_a_temporary_file(tmp_path: Path) -> None:
    wav = tone_wav()
    recorder(tmp_path / "stdin").play(wav)
    assert recorded(tmp_path / "stdin") == [wav]
    before = set(Path(os.environ.get("TMPDIR", "/tmp")).glob("referee-say-*.wav"))
    recorder(tmp_path / "file", "{wav}").play(wav)
    assert recorded(tmp_path / "file") == [wav]
    assert set(Path(os.environ.get("TMPDIR", "/tmp")).glob("referee-say-*.wav")) == before
    assert check_audio(recorder(tmp_path / "check")) is None
    tone = read_wav(recorded(tmp_path / "check")[0])
    assert 0.2 <= tone.seconds <= 1 and tone.rms > 1000


def test_a_failing_player_raises_its_own_stderr_line() -> None:
    aplay = shutil.which("aplay")
    assert aplay, "alsa-utils (aplay) is a test dependency"
    broken = CommandPlayer((aplay, "-q", "-D", "no-such-device", "-"), name="aplay")
    with pytest.raises(VoiceError, match=r"^aplay: .*audio open error"):
        broken.play(tone_wav())
    assert (check_audio(broken) or "").startswith("aplay: ")
    missing = CommandPlayer(("no-such-player", "-"))
    with pytest.raises(VoiceError, match=r"no-such-player: cannot run no-such-player"):
        missing.play(tone_wav())


def test_a_player_that_hangs_is_stopped(tmp_path: Path) -> None:
    start = time.monotonic()
    with pytest.raises(VoiceError, match=r"^stuck: still playing after \d+ s, stopped"):
        stuck(tmp_path / "gate", margin=0.5).play(b"not a wav: the timeout is the margin alone")
    assert time.monotonic() - start < 5


def test_finding_a_player(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(VoiceConfigError, match=r"unknown player 'mpv'; choose auto, aplay, paplay"):
        find_player("mpv")
    assert find_player("aplay").argv == (shutil.which("aplay"), "-q", "-")
    assert find_player("paplay").argv == (shutil.which("paplay"), "{wav}")
    monkeypatch.setenv("PULSE_SERVER", f"unix:{tmp_path}/no-server")  # no PulseAudio or PipeWire answers
    assert find_player("auto").name == "aplay"
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(VoiceError, match=r"aplay not found: install the Debian package alsa-utils"):
        find_player("aplay")
    with pytest.raises(VoiceError, match=r"no audio player found: install .*alsa-utils.*pulseaudio-utils"):
        find_player("auto")


def test_speech_and_looking_for_a_pulse_server_where_none_can_be_write_nothing(tmp_path: Path) -> None:
    # No PULSE_SERVER and no session runtime folder (a service, a test, a shell over ssh): the
    # referee's "auto" player is aplay, and neither looking for a server nor making speech ran a
    # pulse client that leaves folders behind in HOME and TMPDIR.
    home, temp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    temp.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PULSE_SERVER", "XDG_RUNTIME_DIR")}
    env.update(HOME=str(home), TMPDIR=str(temp))
    code = "from referee.announce.players import find_player, pulse_answers; " \
           "from referee.announce.synth import synthesise; from referee.announce.voices import voice_for; " \
           "print(pulse_answers(), find_player('auto').name, " \
           "len(synthesise('Gracz 2: pietnascie!', voice_for('pl'))) > 1000)"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    expected = "True paplay True" if Path("/run/pulse/native").exists() else "False aplay True"
    assert done.stdout.split("\n")[0] == expected
    if expected == "False aplay True":
        assert list(home.rglob("*")) == [] and list(temp.rglob("*")) == []


# -- the speaker -------------------------------------------------------------------------------


def test_the_speaker_says_texts_in_order_without_holding_up_the_caller(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    folder = tmp_path / "said"
    errors: list[str] = []
    texts = ["Gracz 2: piętnaście!", "Zablokowane!", "Wygrywa Gracz 1: 11 punktów."]
    speaker = Speaker("pl", player=recorder(folder, gate=gate), on_error=errors.append)
    start = time.monotonic()
    for text in texts:
        speaker.say(text)
    speaker.say(None)
    speaker.say("  ")
    assert time.monotonic() - start < 0.5
    assert recorded(folder) == []  # nothing could be played yet: the player waits at the gate
    with open(gate, "w") as opened:
        opened.write("go")
    assert speaker.close(timeout=30) is True  # close waits for all three
    voice = voice_for("pl")
    assert recorded(folder) == [synthesise(text, voice) for text in texts]
    assert errors == [] and speaker.error is None
    with pytest.raises(RuntimeError, match="closed"):
        speaker.say("Remis.")


def test_close_waits_only_so_long(tmp_path: Path) -> None:
    errors: list[str] = []
    speaker = Speaker("en", player=stuck(tmp_path / "gate", margin=2), on_error=errors.append)
    speaker.say("Blocked!")
    speaker.say("A tie.")
    start = time.monotonic()
    assert speaker.close(timeout=0.3) is False
    assert time.monotonic() - start < 1.5


def test_a_player_failure_is_one_line_then_quiet(tmp_path: Path) -> None:
    aplay = shutil.which("aplay")
    assert aplay
    broken = CommandPlayer((aplay, "-q", "-D", "no-such-device", "-"), name="aplay")
    errors: list[str] = []
    phrases = Phrases.load("en")
    events = [Event(1, Kind.PLAY, player=0, points=10), Event(2, Kind.PLAY, player=1, points=0),
              Event(3, Kind.BLOCKED), Event(3, Kind.HAND_END, winner=0, points=11)]
    with Speaker("en", player=broken, on_error=errors.append) as speaker:
        for event in events:
            speaker.announce(event, phrases.say(event))  # as Session(announce=speaker.announce) calls it
    assert len(errors) == 1, errors
    assert errors[0].startswith("sound: aplay: ") and "audio open error" in errors[0]
    assert errors[0].endswith("announcements are printed only (--mute to silence this)")
    assert speaker.error and speaker.error.startswith("aplay: ")


def test_without_espeak_the_speaker_says_what_to_install(tmp_path: Path) -> None:
    errors: list[str] = []
    folder = tmp_path / "said"
    with Speaker("da", player=recorder(folder), espeak="no-such-espeak", on_error=errors.append) as speaker:
        speaker.say("Blokeret!")
        speaker.say("Uafgjort.")
    assert errors == ["sound: no-such-espeak not found: install the Debian package espeak-ng (apt install espeak-ng); "
                      "announcements are printed only (--mute to silence this)"]
    assert recorded(folder) == []


def test_bad_speaker_settings_are_refused_at_once(tmp_path: Path) -> None:
    with pytest.raises(VoiceConfigError, match="no voice for language 'xx'"):
        Speaker("xx")
    with pytest.raises(VoiceConfigError, match="unknown player 'speakers'"):
        Speaker("pl", player="speakers")
    with pytest.raises(VoiceConfigError, match=r"pl\.speed must be"):
        Speaker("pl", voices=write_json(tmp_path / "v.json", {"pl": {"speed": 5}}))


def test_the_sound_options_of_the_live_commands(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lang", default="pl")
    add_arguments(parser)
    assert open_speaker(parser.parse_args(["--mute"])) is None
    lines: list[str] = []
    speaker = open_speaker(parser.parse_args(["--lang", "sv", "--player", "aplay"]), lines.append)
    assert speaker is not None and speaker.voice == voice_for("sv")
    assert speaker.close(timeout=10) is True
    from referee.cli import UserError
    bad = write_json(tmp_path / "v.json", {"sv": {"pitch": -1}})
    with pytest.raises(UserError, match=r"v.json: sv.pitch must be an integer from 0 to 99, got -1"):
        open_speaker(parser.parse_args(["--lang", "sv", "--voices", str(bad)]))


# -- referee say -------------------------------------------------------------------------------


def test_referee_say_writes_a_wav_and_never_overwrites(tmp_path: Path) -> None:
    out = tmp_path / "koniec.wav"
    result = referee("say", "--lang", "pl", "--wav", out, "Koniec meczu!", "Wygrywa Gracz 1.")
    ok(result)
    assert result.stdout.startswith(f"wrote {out} (")
    written = out.read_bytes()
    assert written == synthesise("Koniec meczu! Wygrywa Gracz 1.", voice_for("pl"))
    assert_speech("Koniec meczu! Wygrywa Gracz 1.", written)
    line = one_error_line(referee("say", "--lang", "en", "--wav", out, "Something else."))
    assert line == f"referee say: {out} already exists: --wav will not overwrite it"
    assert out.read_bytes() == written


def test_referee_say_user_errors_are_one_line(tmp_path: Path) -> None:
    assert one_error_line(referee("say", "--lang", "xx", "hi")) == (
        "referee say: no voice for language 'xx'; available: pl, en, da, sv")
    bad = write_json(tmp_path / "v.json", {"en": {"speed": 9000}})
    line = one_error_line(referee("say", "--lang", "en", "--voices", bad, "--wav", tmp_path / "x.wav", "hi"))
    assert line == f"referee say: {bad}: en.speed must be an integer from 80 to 450, got 9000"
    assert not (tmp_path / "x.wav").exists()


def test_referee_say_to_standard_output() -> None:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    done = subprocess.run([sys.executable, "-m", "referee.cli", "say", "--lang", "sv", "--wav", "-", "Blockerat!"],
                          capture_output=True, env=env, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert_speech("Blockerat!", done.stdout)


def test_speaking_from_several_threads_keeps_each_speaker_in_order(tmp_path: Path) -> None:
    errors: list[str] = []
    speakers = {lang: Speaker(lang, player=recorder(tmp_path / lang), on_error=errors.append) for lang in ("en", "sv")}
    lines = {"en": ["Blocked!", "A tie.", "Undone."], "sv": ["Blockerat!", "Oavgjort.", "Ångrat."]}

    def say_all(speaker: Speaker, texts: list[str]) -> None:
        for text in texts:
            speaker.say(text)

    threads = [threading.Thread(target=say_all, args=(speakers[lang], lines[lang])) for lang in lines]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for lang, speaker in speakers.items():
        assert speaker.close(timeout=30)
        assert recorded(tmp_path / lang) == [synthesise(text, voice_for(lang)) for text in lines[lang]]
    assert errors == []
