"""The game's messages are generated from its proto file as the distribution builds."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithMessages(build_py):
    def run(self) -> None:
        from grpc_tools import protoc

        out = Path(self.build_lib)
        out.mkdir(parents=True, exist_ok=True)
        if protoc.main(["protoc", "-Iproto", f"--python_out={out}", "coin.proto"]) != 0:
            raise RuntimeError("protoc failed on proto/coin.proto")
        super().run()


setup(cmdclass={"build_py": BuildWithMessages})
