use super::*;

#[test]
fn tiles_round_trip_through_the_attribute() {
    let t = LayerTiles {
        register: Some(vec![1, 4, 64]),
        shared: Some(vec![16, 128, 64]),
    };
    let a = t.to_attr();
    assert_eq!(LayerTiles::from_attr(&a).unwrap(), t);
    assert_eq!(t.get(Level::Register), Some(&[1u64, 4, 64][..]));
    assert_eq!(t.get(Level::Global), None);
}

#[test]
fn tiles_reject_global_and_zero_sizes() {
    let bad = Attribute::dictionary(vec![NamedAttribute {
        name: "global".into(),
        value: Attribute::dense_i64_array(vec![4]),
    }]);
    let m = LayerTiles::from_attr(&bad).unwrap_err();
    assert!(m.contains("unknown layer 'global'"), "{m}");
    let zero = Attribute::dictionary(vec![NamedAttribute {
        name: "shared".into(),
        value: Attribute::dense_i64_array(vec![4, 0]),
    }]);
    let m = LayerTiles::from_attr(&zero).unwrap_err();
    assert!(m.contains("size 0 < 1"), "{m}");
}

#[test]
fn levels_are_ordered_innermost_first() {
    assert!(Level::Register < Level::Shared && Level::Shared < Level::Global);
    let a = Attribute::array(vec![
        Attribute::string("global"),
        Attribute::string("register"),
    ]);
    assert_eq!(
        levels_from_attr(&a).unwrap(),
        vec![Level::Global, Level::Register]
    );
    let bad = Attribute::array(vec![Attribute::string("l2")]);
    assert!(levels_from_attr(&bad).unwrap_err().contains("entry #0"));
    assert_eq!(Level::Shared.layer_index(), 1);
}
