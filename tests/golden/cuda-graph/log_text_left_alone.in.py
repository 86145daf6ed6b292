import networkx as nx


def build(edges):
    print("cuda graphs disabled")
    return nx.graph(edges)
