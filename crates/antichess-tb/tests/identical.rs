//! Generation is deterministic and its output fixed: every table of at most three units
//! (en passant, promotions and symmetric positions all occur) is built with each
//! propagation strategy and with one and two threads, and the pawn tables K+P v K+P and
//! K+N v K+P with what they need (21 tables of four units) with the automatic strategy;
//! every file must be byte-identical to the reference, named by its length and its
//! xxh3-64 checksum (the header field that covers every other byte). The reference files
//! were made by the generator of before issue 40, which kept a list of positions per DTC
//! level.

use antichess_tb::format::file_name;
use antichess_tb::{build, dependencies, BuildOptions, Material, Strategy};
use antichess_testkit::temp_dir;

use antichess_core::Rules;

const RULES: Rules = Rules::INTERNATIONAL;

/// (material, file length, checksum) of the reference files.
const REFERENCE: &[(&str, u64, u64)] = &[
    ("Bb", 782, 0x35a5f1af991dfca9),
    ("Bn", 789, 0x59af8ee818047461),
    ("Kb", 816, 0xe336832e3238cd24),
    ("Kk", 660, 0xd3ec01244a76ff59),
    ("Kn", 953, 0x707ae807d4d4a941),
    ("Kq", 832, 0x0f0220ecf89e74dc),
    ("Kr", 921, 0x19c1e736d37cbaac),
    ("Nn", 1025, 0x1e3fe5ff3834ece6),
    ("Qb", 746, 0xa79b428e8463be51),
    ("Qn", 822, 0xf8309a82b19f8593),
    ("Qq", 766, 0x87fb6a4aed3e2d13),
    ("Qr", 759, 0xa7da44786bcddfdd),
    ("Rb", 772, 0x5abdbcc7fc0853e5),
    ("Rn", 782, 0x5af5769ee7764f42),
    ("Rr", 752, 0x6280511bb4bda2fc),
    ("Bp", 1500, 0x34f15db6a0898508),
    ("Kp", 1553, 0xc1eaebcb2ba2925e),
    ("Np", 1398, 0x8a44d148f3af53e4),
    ("Qp", 1284, 0x75ad54b9764153d4),
    ("Rp", 1275, 0xf9c59a34b8aef30a),
    ("Pp", 1113, 0x5f22ac4a9c2f02c9),
    ("BBb", 14543, 0xe998a5e7fc5b0242),
    ("BBk", 18822, 0x3aaf7e86126b92d1),
    ("BBn", 15840, 0x91dc4c550591e13a),
    ("BBq", 13983, 0xa6f294e850e0522a),
    ("BBr", 14082, 0xbf6e4b77d400cea0),
    ("BNb", 29211, 0x54ac9883d31ce1b8),
    ("BNk", 32845, 0xc45660ac0f8d071e),
    ("BNn", 36367, 0x10f75cb2622ea3ce),
    ("BNq", 29707, 0xbc63ca9cd4aff788),
    ("BNr", 28312, 0xe53d9e0bf8457bf7),
    ("KBb", 29455, 0xc437970cae10c9e2),
    ("KBk", 28405, 0xc74905b40ac47242),
    ("KBn", 30895, 0x3b91d7a065f39bbe),
    ("KBq", 29877, 0x3b885f4347dea55c),
    ("KBr", 29034, 0x1f21c8590a663080),
    ("KKb", 16091, 0xcc2e79e061328edf),
    ("KKk", 13462, 0x16d6c09135b4b551),
    ("KKn", 16555, 0xc0ef87e62fc16d85),
    ("KKq", 14541, 0x9bad03f3a1d36bbb),
    ("KKr", 15097, 0x0a1ded1299f38387),
    ("KNb", 36855, 0xc5a04c4e71693d03),
    ("KNk", 28200, 0x881ef6ded023ea7f),
    ("KNn", 38893, 0x7989998b98053fa0),
    ("KNq", 29789, 0x399156a36f9828fa),
    ("KNr", 29571, 0x9492fb7552862928),
    ("KQb", 29575, 0xec0d4b75c3bcdc07),
    ("KQk", 30646, 0x2dc617a6571c005f),
    ("KQn", 29360, 0x1615c03530dc9ff6),
    ("KQq", 30126, 0xe4dd8e1a6681db36),
    ("KQr", 27310, 0xe76301328e35ccd1),
    ("KRb", 29302, 0xa0f6459267ef91d1),
    ("KRk", 28517, 0x1998ea8c44af0de1),
    ("KRn", 28504, 0xe74ee1d7bffd3738),
    ("KRq", 28501, 0xd10d043b89461d49),
    ("KRr", 25597, 0x97e57cf9854eb6e6),
    ("NNb", 16975, 0x12f06938a940f708),
    ("NNk", 17100, 0x2f5aef85eb5177cc),
    ("NNn", 16888, 0x5404bb79a6006e01),
    ("NNq", 14607, 0xd077157948049732),
    ("NNr", 15840, 0xfd215292518aa90f),
    ("QBb", 28235, 0x73854aa732f7c9e4),
    ("QBk", 33476, 0x210b0e039c71e219),
    ("QBn", 29705, 0x2ed5f7ab800ea7d8),
    ("QBq", 30196, 0x89c790f6aae7114f),
    ("QBr", 27279, 0x286a9fb7f086de6c),
    ("QNb", 31234, 0xc883452139ce8d25),
    ("QNk", 33111, 0x2204c77160a1ae19),
    ("QNn", 30032, 0x28f03a1b73e4c405),
    ("QNq", 29603, 0x1198faf124f7f0ad),
    ("QNr", 26869, 0x972a201a35092f7a),
    ("QQb", 13998, 0x766e511175e09b4b),
    ("QQk", 14334, 0xe69701f23e175b22),
    ("QQn", 14717, 0xbbbe1fb9a08d049a),
    ("QQq", 13858, 0x7b78d859dde97c1e),
    ("QQr", 13894, 0xb165ded36d88b6ad),
    ("QRb", 28475, 0x768dfc407cc441b2),
    ("QRk", 28190, 0x60e845e4ceb41fc5),
    ("QRn", 28134, 0x8bd428c48888901b),
    ("QRq", 29741, 0xd33832795783fc25),
    ("QRr", 26824, 0x5062216df8eb54ff),
    ("RBb", 27617, 0xe7bc6d17aa46c659),
    ("RBk", 33111, 0x6329f43bd2d0c8ec),
    ("RBn", 30177, 0x4f48aa1f061497e9),
    ("RBq", 29928, 0x60c49ff9b390359e),
    ("RBr", 27113, 0x1778fb3f806eb764),
    ("RNb", 31039, 0x4403a8a42f65fb0d),
    ("RNk", 30816, 0xfc78d1f7822268a9),
    ("RNn", 29955, 0xa5c50da7d4aefe79),
    ("RNq", 28647, 0x000c960be68a85db),
    ("RNr", 26219, 0x254688fce67315a7),
    ("RRb", 14021, 0xbd00fa2888d4846a),
    ("RRk", 15208, 0x5ef479e84e80ce2e),
    ("RRn", 14744, 0xfa1bfefb8b8705b3),
    ("RRq", 13817, 0x87546c44b405b154),
    ("RRr", 13776, 0x75aab85bc914f082),
    ("BBp", 38274, 0xeab689e1ffd74245),
    ("BNp", 70970, 0x58ed23645c32a1d7),
    ("BPb", 75922, 0xd4d9bb1f02116164),
    ("BPk", 94652, 0x84eea9aaf8679953),
    ("BPn", 97529, 0x4043a13a69ef093b),
    ("BPq", 77966, 0x1dd2bbeff8da12f1),
    ("BPr", 74987, 0xae23323ce9ab3e11),
    ("KBp", 65479, 0x3c96c2ec9642d1e2),
    ("KKp", 35343, 0x6e235ffa97dac900),
    ("KNp", 66397, 0x1af4220b76975b18),
    ("KPb", 92897, 0x0769ac988a025182),
    ("KPk", 78717, 0x5635353425813dd1),
    ("KPn", 96357, 0x795ab9bf8f45daf3),
    ("KPq", 79050, 0x5741e90559fd6e5a),
    ("KPr", 70392, 0x41a71e48e15d322e),
    ("KQp", 63865, 0x0912f716d3c2a373),
    ("KRp", 61881, 0x6877cc9f6b4dab74),
    ("NNp", 39504, 0x252fa05ca0ba76ac),
    ("NPb", 91364, 0x39ac5788a96ea833),
    ("NPk", 89295, 0xea3403432c1c3e1d),
    ("NPn", 118804, 0x0d373bef01e45c26),
    ("NPq", 79031, 0x6444e83c7d8f567d),
    ("NPr", 73028, 0x87d47df6d31c258c),
    ("QBp", 62843, 0x0b1c59eae3cfe517),
    ("QNp", 65325, 0xcb094c62cd00c945),
    ("QPb", 82549, 0x087471cd39a93d20),
    ("QPk", 89805, 0x9f2f86d47ee3e7b6),
    ("QPn", 84867, 0x4d68d38f953a4919),
    ("QPq", 76448, 0x3db7a1d811b52736),
    ("QPr", 70429, 0x3e6babeb02e1e3a3),
    ("QQp", 32669, 0xec901ad25530b802),
    ("QRp", 58949, 0x2ed474b3555ac97f),
    ("RBp", 62467, 0xc31fab2b28164067),
    ("RNp", 61757, 0x3a3f41594df4dfd6),
    ("RPb", 81130, 0x90d6fc7cbf5f939f),
    ("RPk", 88434, 0xbc442f14c58f0e1c),
    ("RPn", 87013, 0xdf2ee4c63f775630),
    ("RPq", 76299, 0xab3e70071de25f5d),
    ("RPr", 66415, 0xd96ad4d78845a986),
    ("RRp", 31383, 0xdc87edb270087a73),
    ("BPp", 60198, 0xec87e678389e9c3e),
    ("KPp", 55326, 0x5cba22b0c1f90758),
    ("NPp", 60510, 0x2c8e4fcc9c0c9a0a),
    ("PPb", 37535, 0x4bbd2f9d77368468),
    ("PPk", 32967, 0x3869ab8bbe7c44d2),
    ("PPn", 41669, 0x244ac96c699d204c),
    ("PPq", 29752, 0xffa9f5feb7b0300b),
    ("PPr", 26539, 0xbe6b6ac2c08fefcf),
    ("QPp", 56911, 0xa8f90d5d5de0ee4a),
    ("RPp", 51353, 0xbb963f24425e7ec9),
    ("PPp", 21194, 0xce27e026e53a3b7b),
    ("KBkb", 1751550, 0x96d4eaf493a55720),
    ("KBkn", 1796495, 0x8a2486f9db77f3e1),
    ("KKkb", 919855, 0xdcffbcce8f95a988),
    ("KKkk", 355876, 0x01b9840feeb3fdd4),
    ("KKkn", 874737, 0x946d0a8520897aeb),
    ("KKkq", 885798, 0x1bbe495d18f26663),
    ("KKkr", 857902, 0xb7cb8715d43987de),
    ("KNkn", 1760411, 0xa710520c01a526d7),
    ("KQkb", 1583589, 0xfce4057215c4d739),
    ("KQkn", 1572509, 0xf7907225f53e0d4b),
    ("KQkq", 1522138, 0xa13056c70a896ede),
    ("KQkr", 1543224, 0xbf025dfe0320fee7),
    ("KRkb", 1644162, 0xedb7880ddd85601a),
    ("KRkn", 1630188, 0x8811cfe9f8895b24),
    ("KRkr", 1564340, 0x10cf71761097d181),
    ("KBkp", 4965688, 0xb23dc9828ee9f20a),
    ("KKkp", 2161609, 0x70b1d0bde51daec6),
    ("KNkp", 5035200, 0x0ca6571acdca2298),
    ("KQkp", 4692300, 0xec7c87fb51cdafb1),
    ("KRkp", 4666430, 0xecb06f7237959f75),
    ("KPkp", 3529104, 0xd152c68c2e262158),
];

fn targets(four_units: bool) -> Vec<Material> {
    let mut t = Material::all_up_to(3);
    if four_units {
        t.push("KPkp".parse().unwrap());
        t.push("KNkp".parse().unwrap());
    }
    t
}

fn check(name: &str, threads: usize, strategy: Strategy, four_units: bool) {
    let dir = temp_dir(name);
    let options = BuildOptions {
        rules: RULES,
        dir: dir.clone(),
        threads,
        strategy,
    };
    let report = build(&targets(four_units), &options, &|_| {}).unwrap();
    let plan = dependencies(&targets(four_units), RULES);
    assert_eq!(report.built.len(), plan.len());
    for m in &plan {
        assert!(
            REFERENCE.iter().any(|(name, _, _)| *name == m.name()),
            "{m} has no reference"
        );
    }
    if four_units {
        assert_eq!(plan.len(), REFERENCE.len(), "every reference is checked");
    }
    for &(material, len, sum) in REFERENCE {
        let m: Material = material.parse().unwrap();
        if !plan.contains(&m) {
            continue;
        }
        let bytes = std::fs::read(dir.join(file_name(&m))).unwrap();
        let stored = u64::from_le_bytes(bytes[80..88].try_into().unwrap());
        assert_eq!(
            (bytes.len() as u64, stored),
            (len, sum),
            "{material} ({strategy:?}, {threads} threads) differs from the reference"
        );
        assert_eq!(antichess_tb::format::checksum(&bytes), sum, "{material}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn automatic_strategy_on_two_threads_with_four_units_matches_the_reference() {
    check("identical-auto", 2, Strategy::Auto, true);
}

#[test]
fn backward_propagation_on_one_thread_matches_the_reference() {
    check("identical-backward", 1, Strategy::Backward, false);
}

#[test]
fn forward_propagation_on_two_threads_matches_the_reference() {
    check("identical-forward", 2, Strategy::Forward, false);
}
