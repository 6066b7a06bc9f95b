//! Disjoint sets (union-find): which items end up joined, after any number of
//! unions. Clustering joins documents by their duplicate pairs; training joins
//! pairs that share a document, so that no page sits on both sides of a split.

/// Disjoint sets with path halving and union by size.
#[derive(Debug, Clone)]
pub struct UnionFind {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl UnionFind {
    pub fn new(n: usize) -> UnionFind {
        UnionFind {
            parent: (0..n as u32).collect(),
            size: vec![1; n],
        }
    }

    pub fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grandparent = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grandparent;
            x = grandparent;
        }
        x
    }

    pub fn union(&mut self, a: u32, b: u32) {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        if self.size[a as usize] < self.size[b as usize] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b as usize] = a;
        self.size[a as usize] += self.size[b as usize];
    }

    pub fn size_of(&mut self, x: u32) -> u32 {
        let root = self.find(x);
        self.size[root as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_find_sizes() {
        let mut uf = UnionFind::new(5);
        uf.union(0, 1);
        uf.union(3, 4);
        uf.union(1, 4);
        assert_eq!(uf.size_of(0), 4);
        assert_eq!(uf.size_of(2), 1);
        assert_eq!(uf.find(3), uf.find(0));
    }
}
