"""The derived codec (services/engine/codec.py) gives the same bytes as ever: over random
playouts of every game, player count and option set, the digest of every state, view,
projected event and legal action it encodes is the one recorded when the codec built its
messages field by field through protobuf's constructors. The bytes a codec writes itself
(``*_to_bytes``, what a rules service sends) are those of its messages. A change here
changes what the rules services send and the games' golden digests: regenerate only on
purpose (``python -m tests.test_codec_encodings`` prints the table).

Every registered game is played, a game installed from another package included (with its
default options): its codec's bytes are checked against its messages; the digests are
compared for the games that recorded them."""

import hashlib
import random

import pytest

from services.registry import game_ids, get_game, player_counts

# Option sets to play besides the defaults, by game; a game not named plays its defaults.
OPTIONS = {
    "borgia": ({}, {"flame_of_thy_tongue": "true", "poisoned_dice": "true"}),
    "mortadella": ({}, {"additional_rules": "false"}),
    "pecunia": ({}, {"deck": "gentle"}),
}
MAX_STEPS = 300

DIGESTS: dict[tuple[str, int, int], str] = {
    ("borgia", 2, 0): "a0dc49ce8805046b5e1cc9e26c313d4bf284e50fffff63c2328f5cf381f17702",
    ("borgia", 2, 1): "fcca5efcd949403b04522d4530ab42bd232878f6eb56122643c3ca86b25dee3d",
    ("borgia", 3, 0): "d37664e3bfcd415a46a580b939b4d8a7b4b9f1858e17ff7b9d0debf56f1d7bab",
    ("borgia", 3, 1): "3b050b87fe3f998ecb18edcae323de35676e4559d3d3a3e8730b9bef1eb43e6d",
    ("borgia", 4, 0): "b5c996f9a4c1262ef5d3a1cbb3030ae0b197bcd001c2a85a59c4386a44e69033",
    ("borgia", 4, 1): "011a3866b7ddb5db6ac8c44414a487df9d2924b2d1df5e6e2203663d1a6b34f3",
    ("borgia", 5, 0): "530abbb320196595c5709f5fe2557682355b03580ba50d8e8c52b73cae5e8411",
    ("borgia", 5, 1): "3a3db1332b2b9a1893fd54ce835eafbb0cd879a91e32cccb329c2219096880cb",
    ("borgia", 6, 0): "bfcc5a9c29e0cb066ff8dbed6e03cf8db0d4afa3d83b3cc10e5cf6eb36eae74b",
    ("borgia", 6, 1): "3cb67523bd7e9d8f6f29d648b2dde535dc1c4a6437d17c7614d55c00df30c1f4",
    ("mortadella", 2, 0): "aa41458443187cffaf5645847d95dd09b1f103f48b1c8417c6507b5bbb097029",
    ("mortadella", 2, 1): "eff1e947fb708438ea696ec52ca75a4975d60e1edd11be9d49169fcf3666d266",
    ("mortadella", 3, 0): "6e3e35fe2168a27774a598dc7827bdbb8de8b601dcaff205a4e474efa5ad1a5d",
    ("mortadella", 3, 1): "2e736dff6cf1f33582a1ff326914866d573ffa87559246fe3e309c478fed6759",
    ("mortadella", 4, 0): "fcc35251fb8defde66d9ed04d43f9fd74907f496b8264518e1635dd07c915779",
    ("mortadella", 4, 1): "5db642afee53616a66868d4970c26ee4885b27bff3dc3df7524666a9cdcaa756",
    ("mortadella", 5, 0): "771d8d8ff2c2e3b3170684df924178c1c7a3466df73512721b4e696ae0a460bc",
    ("mortadella", 5, 1): "1bb29dec59726a28086acf1fba0433e3b452c91d8993c184a700124a7ab4f090",
    ("mortadella", 6, 0): "cd6d1e3c3d4f0c1f0b06260f6a90242d42a4379b8cab11b04f1a6d5a2afb2d52",
    ("mortadella", 6, 1): "4c1b52d053c65e8a2d8562409ee078d947c62379c85513bd3a21edbafd04a08a",
    ("mortadella", 7, 0): "a56d8b0a00b43698971d4b8db54926a365ab6b43b889a45814ea8fdcdf9970c3",
    ("mortadella", 7, 1): "490ea8c58a1d0e430b315af46387bd1f4a9ed3b8d4db76f1ff3f5ddf954071fb",
    ("pecunia", 2, 0): "1ec084c25e05f90735f8b1c4042e10e5ab2eb05140eb2d6bbe163764cd5c8ae0",
    ("pecunia", 2, 1): "4e0e4a88b0128534b32e7209381fc489e08b67a8092e355913e1d7959804037b",
    ("pecunia", 3, 0): "8ac516ab87482dd383cb7ce2d65bec28f60e1e3cc504f329355309fa513791c1",
    ("pecunia", 3, 1): "66121e31eb69001d81f9aff3d6c36872052e27e986e4a7d108ca398e58891aa6",
    ("pecunia", 4, 0): "220c99eea64ba47759ad3e5ab3e8ec65480d2c5291d5c9b78b6f4c09a3442004",
    ("pecunia", 4, 1): "e0fcd7419d599f81d48ad1a5a14aab1de154ce94888c2ce2b959f6e9f2802368",
    ("pecunia", 5, 0): "d92ceedf5d5f94e1f35fedf006b934ae1b97ea25192e7924212cb58d646e7fdc",
    ("pecunia", 5, 1): "1eb10ddeccf8e942095da572feb792a1845b085da2521880a8c59bbbecd2505d",
    ("pecunia", 6, 0): "5e916f326067edb5f92d07b0c47ec8258b81d63aa9d81303eeb59f42817283ed",
    ("pecunia", 6, 1): "54da4f3a43506e82745f482a210f3ea2100ccec6a06002fafeb11152f773dca3",
}


def encodings_digest(game_id: str, players: int, options_index: int) -> str:
    game = get_game(game_id)
    engine, codec = game.engine, game.codec
    options = option_sets(game_id)[options_index]
    if game_id == "borgia" and options and players == 2:
        options = {**options, "shadow_puppets": "true"}  # a two-player variant
    seed = 100 * players + options_index
    chooser = random.Random(seed)
    digest = hashlib.sha256()

    def add(kind: str, value) -> None:
        data = getattr(codec, f"{kind}_to_proto")(value).SerializeToString()
        to_bytes = getattr(codec, f"{kind}_to_bytes", None)
        if to_bytes is not None:
            assert to_bytes(value) == data, f"{kind} {value!r}"
        digest.update(len(data).to_bytes(4, "big") + data)

    viewers = [None, *range(players)]
    state, events = engine.new_game(players, options, seed)
    for _ in range(MAX_STEPS):
        add("state", state)
        for viewer in viewers:
            add("view", engine.view(state, viewer))
        for event in events:
            for viewer in viewers:
                projected = engine.project_event(event, viewer)
                if projected is not None:
                    add("event", projected)
        deciders = engine.deciders(state)
        if not deciders:
            break
        seat = chooser.choice(deciders)
        legal = list(engine.legal_actions(state, seat))
        for action in legal:
            add("action", action)
        action = chooser.choice(legal)
        state, events = engine.apply(state, seat, action)
    return digest.hexdigest()


def option_sets(game_id: str) -> tuple[dict[str, str], ...]:
    return OPTIONS.get(game_id, ({},))


RECORDED = {game for game, _, _ in DIGESTS}
CASES = [(g, n, i) for g in game_ids() for n in player_counts(g) for i in range(len(option_sets(g)))]


@pytest.mark.parametrize("case", CASES, ids=lambda case: "-".join(map(str, case)))
def test_encodings_are_unchanged(case):
    digest = encodings_digest(*case)  # checks every *_to_bytes against its message on the way
    if case[0] in RECORDED:
        assert digest == DIGESTS[case]


if __name__ == "__main__":
    for game_id, players, options_index in CASES:
        print(f'    ("{game_id}", {players}, {options_index}): "{encodings_digest(game_id, players, options_index)}",')
