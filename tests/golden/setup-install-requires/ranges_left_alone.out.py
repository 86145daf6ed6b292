from setuptools import setup

setup(name="lib", install_requires=["torch>=2.1", "numpy"])
print("install_requires=[\"flash-attn\"]")
