# pbr reads everything from setup.cfg (metadata, packages, entry points) and
# requirements.txt (install_requires); setuptools still needs this entry point.
import setuptools

setuptools.setup(pbr=True)
