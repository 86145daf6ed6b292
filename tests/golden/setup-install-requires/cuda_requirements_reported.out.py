from setuptools import setup

requirements = ["torch==2.0.1+cu118", "numpy", "xformers"]
setup(
    name="demo",
    install_requires=requirements,
    extras_require={"video": ["decord==0.6.0"], "dev": ["pytest"]},
)
